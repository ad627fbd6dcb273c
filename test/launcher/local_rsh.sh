#!/bin/sh
# A stand-in for ssh to this same machine: `local_rsh.sh HOST COMMAND...` runs the command
# line here through /bin/sh -c, as ssh's remote shell would. With `mpirun --launcher ssh`
# it exercises the remote-rank path (agent, quoting, PMI_PORT) without a second host.
shift
exec /bin/sh -c "$*"
