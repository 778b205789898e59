//! Images: storage images as `texture_storage_*`, sampled images read by
//! OpImageFetch as `texture_*`, and their instructions.
