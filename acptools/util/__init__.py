"""The library's plumbing, shared by every layer and no part of its face: bounded caches (lru), bounded
text for values that hold states (shortrepr), content keys (hashing), and what the batch commands write
(progress on stderr, output files, the bars of their plots)."""
