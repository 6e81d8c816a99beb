//! Integration tests of the timing model.

mod common;
mod examples;
mod model;
