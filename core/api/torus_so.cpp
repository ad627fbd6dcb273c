// Anchor source of libtorus.so; the code comes from the static layer archives.
