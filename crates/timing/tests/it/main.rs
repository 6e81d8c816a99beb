//! Integration tests of the timing model.

mod calibrate;
mod common;
mod examples;
mod model;
mod sensitivity;
