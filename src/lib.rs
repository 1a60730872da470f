//! Genesis: a transactional workspace engine.
pub mod path;
