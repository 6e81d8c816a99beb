//! The built-in functions of OpenCL C 1.2 on vectors.
