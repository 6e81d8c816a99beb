//! Integration tests of the OpenCL compiler.

mod backend;
