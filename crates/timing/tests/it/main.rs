//! Integration tests of the timing model.

mod common;
mod examples;
mod model;
mod calibrate;
mod sensitivity;
