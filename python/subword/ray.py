"""`subword.ray`: count, train and encode on a Ray cluster (`pip install 'subword[ray]'`).
The code lives with the rest of the scale-out wing, in `subword.scale.ray`."""

from subword.scale.ray import connect, count, encode, train, write_tokens

__all__ = ["connect", "count", "encode", "train", "write_tokens"]
