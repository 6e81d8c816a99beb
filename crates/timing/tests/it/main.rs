//! Integration tests of the timing model.
