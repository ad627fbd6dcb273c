// doctest entry point for the transport conformance binary (torus_transport_tests).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
