//! The binary reader and writer.
