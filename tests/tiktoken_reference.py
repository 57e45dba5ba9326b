"""The readable Python version of recovering merges from tiktoken ranks, which the core's
`recover_merge_cuts` (used by `subword.formats.tiktoken.recover_merges`) is tested against."""

from __future__ import annotations

from operator import itemgetter


def split_by_lower_ranks(token: bytes, ranks: dict[bytes, int]) -> list[bytes]:
    """The parts tiktoken's algorithm leaves when it encodes `token`'s bytes using only the
    tokens ranked below `token`: repeatedly merge the adjacent pair forming the lowest-ranked
    token, the leftmost such pair on a tie, until no pair forms one. Two parts mean `token` is
    built by merging them."""
    limit = ranks[token]
    get = ranks.get
    parts = [token[i : i + 1] for i in range(len(token))]
    # pair_ranks[i] is the rank of parts[i] + parts[i+1]; `limit` stands for "not a token
    # below this one". After a merge only the two pairs touching it change.
    pair_ranks = [get(a + b, limit) for a, b in zip(parts, parts[1:])]
    while pair_ranks:
        best = min(pair_ranks)
        if best >= limit:
            break
        i = pair_ranks.index(best)  # index() finds the leftmost
        merged = parts[i] + parts[i + 1]
        parts[i : i + 2] = [merged]
        del pair_ranks[i]
        if i > 0:
            pair_ranks[i - 1] = get(parts[i - 1] + merged, limit)
        if i < len(pair_ranks):
            pair_ranks[i] = get(merged + parts[i + 1], limit)
    return parts


def recover_merges_in_python(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """`recover_merges`, readable."""
    merges = []
    for token, _rank in sorted(ranks.items(), key=itemgetter(1)):
        if len(token) > 1:
            parts = split_by_lower_ranks(token, ranks)
            if len(parts) == 2:
                merges.append((parts[0], parts[1]))
    return merges
