//! The encode path on small hand-made vocabularies: each option of the pipeline and of the
//! algorithms, the cache against no cache, long pieces against short ones, dropout's ends,
//! and decoding back.

use super::*;
use crate::algorithms::bpe::MergeRule;
use crate::pipeline::cache::{KEPT_AT_ONCE_BYTES, MAX_PIECE_BYTES};
use crate::pretokenize::GPT2;
use crate::symbols::byte_to_unicode;

pub(super) fn config(
    kind: Kind,
    end_of_word: EndOfWord,
    algorithm: AlgorithmConfig,
) -> TokenizerConfig {
    TokenizerConfig {
        normalizer: Normalizer::default(),
        pre_tokenizer: PreTokenizer::Whitespace,
        rules: SymbolRules {
            kind,
            end_of_word,
            end_of_word_symbol: "</w>".into(),
        },
        ignore_merges: false,
        unknown: Unknown::Error,
        algorithm,
        specials_in_pattern: false,
    }
}

pub(super) fn bpe(rule: MergeRule) -> AlgorithmConfig {
    AlgorithmConfig::Bpe { merge_rule: rule }
}

/// Tokens get ids in the order given.
pub(super) fn vocab(tokens: &[&str]) -> Vec<(String, u32)> {
    tokens
        .iter()
        .enumerate()
        .map(|(i, t)| (t.to_string(), i as u32))
        .collect()
}

pub(super) fn merges(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// The Sennrich et al. (2016) example: classic, separate `</w>`.
pub(super) fn classic(unknown: Unknown) -> Tokenizer {
    let mut c = config(Kind::Classic, EndOfWord::Separate, bpe(MergeRule::Merges));
    c.unknown = unknown;
    let v = vocab(&[
        "l", "o", "w", "e", "r", "n", "s", "t", "i", "d", "</w>", "es", "est", "est</w>", "lo",
        "low", "<unk>",
    ]);
    let m = merges(&[
        ("e", "s"),
        ("es", "t"),
        ("est", "</w>"),
        ("l", "o"),
        ("lo", "w"),
    ]);
    Tokenizer::new(c, v, &m, vec![]).unwrap()
}

fn ids_of(t: &Tokenizer, tokens: &[&str]) -> Vec<u32> {
    tokens.iter().map(|s| t.vocab[*s]).collect()
}

/// A byte-level vocabulary: the 256 byte symbols (ids 0..256), then `extra` in order.
pub(super) fn byte_vocab(extra: &[&str]) -> Vec<(String, u32)> {
    let mut v: Vec<(String, u32)> = byte_to_unicode()
        .iter()
        .enumerate()
        .map(|(b, c)| (c.to_string(), b as u32))
        .collect();
    for (i, t) in extra.iter().enumerate() {
        v.push((t.to_string(), 256 + i as u32));
    }
    v
}

fn byte_level(extra: &[&str], m: &[(&str, &str)], rule: MergeRule) -> Tokenizer {
    let c = config(Kind::Byte, EndOfWord::None, bpe(rule));
    Tokenizer::new(c, byte_vocab(extra), &merges(m), vec![]).unwrap()
}

#[test]
fn merges_apply_by_rank_with_a_separate_end_of_word() {
    let t = classic(Unknown::Error);
    assert_eq!(
        t.encode("lowest newer", None).unwrap(),
        ids_of(&t, &["low", "est</w>", "n", "e", "w", "e", "r", "</w>"])
    );
}

#[test]
fn ranks_rule_merges_the_lowest_ranked_token_first() {
    // "ab" (256) outranks "bc" (257): "abc" → ab c under ranks; the merge list ranks
    // (b, c) first and gives a bc.
    let ranks = byte_level(&["ab", "bc"], &[], MergeRule::Ranks);
    assert_eq!(ranks.encode("abc", None).unwrap(), [256, b'c' as u32]);
    let listed = byte_level(&["ab", "bc"], &[("b", "c"), ("a", "b")], MergeRule::Merges);
    assert_eq!(listed.encode("abc", None).unwrap(), [b'a' as u32, 257]);
}

#[test]
fn ignore_merges_takes_whole_pieces_that_are_tokens() {
    let m = [("a", "b")];
    let plain = byte_level(&["ab", "abc"], &m, MergeRule::Merges);
    assert_eq!(plain.encode("abc", None).unwrap(), [256, b'c' as u32]);
    let mut c = config(Kind::Byte, EndOfWord::None, bpe(MergeRule::Merges));
    c.ignore_merges = true;
    let whole = Tokenizer::new(c, byte_vocab(&["ab", "abc"]), &merges(&m), vec![]).unwrap();
    assert_eq!(whole.encode("abc", None).unwrap(), [257]);
    assert_eq!(
        whole.encode("abcab", None).unwrap(),
        [256, b'c' as u32, 256]
    );
}

#[test]
fn end_of_word_modes() {
    // Attached: the last symbol carries the marker.
    let c = config(Kind::Classic, EndOfWord::Attached, bpe(MergeRule::Merges));
    let v = vocab(&["a", "b", "a</w>", "b</w>", "ab</w>"]);
    let t = Tokenizer::new(c, v, &merges(&[("a", "b</w>")]), vec![]).unwrap();
    assert_eq!(t.encode("ab ba", None).unwrap(), [4, 1, 2]);
    assert_eq!(t.decode_bytes(&[4, 1, 2]).unwrap(), b"ab ba");
    // None: no marker at all.
    let c = config(Kind::Classic, EndOfWord::None, bpe(MergeRule::Merges));
    let t = Tokenizer::new(c, vocab(&["a", "b", "ab"]), &merges(&[("a", "b")]), vec![]).unwrap();
    assert_eq!(t.encode("ab ba", None).unwrap(), [2, 1, 0]);
    // Separate: a model without its marker is refused.
    let c = config(Kind::Classic, EndOfWord::Separate, bpe(MergeRule::Merges));
    let err = Tokenizer::new(c, vocab(&["a"]), &[], vec![]).unwrap_err();
    assert!(
        err.message.contains("end-of-word symbol"),
        "{}",
        err.message
    );
}

#[test]
fn unknown_characters_map_to_unk_or_fail() {
    let t = classic(Unknown::Unk(16));
    assert_eq!(
        t.encode("lox", None).unwrap(),
        ids_of(&t, &["lo", "<unk>", "</w>"])
    );
    let t = classic(Unknown::Error);
    let err = t.encode("low x", None).unwrap_err();
    assert!(
        err.message
            .starts_with("unknown character 'x' (U+0078) at character 4"),
        "{}",
        err.message
    );
}

#[test]
fn greedy_longest_match_with_continuations() {
    let c = config(
        Kind::Classic,
        EndOfWord::None,
        AlgorithmConfig::Greedy {
            prefix: "##".into(),
        },
    );
    let v = vocab(&[
        "un", "##un", "able", "##able", "a", "##a", "b", "##b", "l", "##l", "e", "##e", "[UNK]",
    ]);
    let mut with_unk = c.clone();
    with_unk.unknown = Unknown::Unk(12);
    let t = Tokenizer::new(with_unk, v.clone(), &[], vec![]).unwrap();
    let ids = t.encode("unable ab unx", None).unwrap();
    assert_eq!(ids, [0, 3, 4, 7, 0, 12]);
    assert_eq!(t.decode_bytes(&ids[..4]).unwrap(), b"unable ab");
    let t = Tokenizer::new(c.clone(), v[..12].to_vec(), &[], vec![]).unwrap();
    assert!(t.encode("unx", None).is_err());
    // Every plain token needs its continuation form.
    let err = Tokenizer::new(c, vocab(&["a", "b", "##a"]), &[], vec![]).unwrap_err();
    assert!(
        err.message.contains("no continuation form"),
        "{}",
        err.message
    );
}

#[test]
fn specials_allowed_and_forbidden() {
    let c = config(Kind::Byte, EndOfWord::None, bpe(MergeRule::Merges));
    let specials = vec![("<s>".to_string(), 300)];
    let t = Tokenizer::new(
        c,
        byte_vocab(&["ab"]),
        &merges(&[("a", "b")]),
        specials.clone(),
    )
    .unwrap();
    let matcher = SpecialMatcher::new(&specials).unwrap().unwrap();
    let a = b'a' as u32;
    assert_eq!(t.encode("ab<s>a", Some(&matcher)).unwrap(), [256, 300, a]);
    // Not allowed: ordinary text.
    assert_eq!(t.encode("<s>", None).unwrap().len(), 3);
    let err = matcher.refuse_in("x<s>").unwrap_err();
    assert!(
        err.message.contains("special token \"<s>\""),
        "{}",
        err.message
    );
    let batch = t.encode_batch_flat(&["ab", "<s>"], None, Some(&matcher), None);
    assert!(batch
        .unwrap_err()
        .message
        .starts_with("text 1 of the batch"));
    assert_eq!(t.decode_bytes(&[256, 300, a]).unwrap(), b"ab<s>a");
}

/// A byte-level model on the GPT-2 pattern with a few ranked tokens over the bytes.
pub(super) fn gpt2_ranked() -> Tokenizer {
    let c = TokenizerConfig {
        pre_tokenizer: PreTokenizer::regex(GPT2).unwrap(),
        ..config(Kind::Byte, EndOfWord::None, bpe(MergeRule::Ranks))
    };
    Tokenizer::new(c, byte_vocab(&["ab", " ab", "abab", "ba"]), &[], vec![]).unwrap()
}

/// `text`'s ids with each piece encoded on its own, past the cache, appended to `out`:
/// what the cached paths must give.
pub(super) fn uncached_ids(t: &Tokenizer, text: &str, mut out: Vec<u32>) -> Vec<u32> {
    for piece in t.config.pre_tokenizer.pieces(text).unwrap() {
        t.encode_piece(&piece, &mut out).unwrap();
    }
    out
}

#[test]
fn the_cache_gives_the_ids_of_the_uncached_path() {
    let t = gpt2_ranked();
    let text = "ab abab ba ab abab ba, abba ab";
    let first = t.encode(text, None).unwrap();
    let again = t.encode(text, None).unwrap(); // every piece now cached
    let uncached = uncached_ids(&t, text, Vec::new());
    assert_eq!(first, uncached);
    assert_eq!(again, uncached);
    let (flat, offsets) = t
        .encode_batch_flat(&[text, "ab", text], None, None, None)
        .unwrap();
    assert_eq!(
        offsets,
        [
            0,
            first.len() as u64,
            first.len() as u64 + 1,
            flat.len() as u64
        ]
    );
}

#[test]
fn cached_pieces_of_any_number_of_ids_come_back_whole() {
    // Short pieces of 1 to 7 ids (in their slot up to `INLINE_IDS`, in the arena beyond),
    // medium and long ones, each encoded cold then from the cache, appended after ids
    // already in the vector, across growth of the vector.
    let t = gpt2_ranked();
    let text = "x ab xy xyz wxyz vwxyz uvwxyz zyxwvu abab ba qqqqqqqqqqqq ab \
                pqrstuvwxyzpqrstuvwxyz abba";
    let uncached = uncached_ids(&t, text, vec![7, 7, 7]);
    for _ in 0..3 {
        let mut out = vec![7, 7, 7];
        t.encode_into(text, None, &mut out).unwrap();
        assert_eq!(out, uncached);
        let mut roomy = Vec::with_capacity(1000);
        roomy.extend([7, 7, 7]);
        t.encode_into(text, None, &mut roomy).unwrap();
        assert_eq!(roomy, uncached);
    }
    let pieces: Vec<String> = t.config.pre_tokenizer.pieces(text).unwrap();
    let counts: Vec<usize> = pieces
        .iter()
        .map(|p| {
            let mut ids = Vec::new();
            t.encode_piece(p, &mut ids).unwrap();
            ids.len()
        })
        .collect();
    for n in 1..=7 {
        assert!(counts.contains(&n), "no piece of {n} ids: {counts:?}");
    }
}

#[test]
fn long_pieces_encode_as_short_ones_do() {
    let t = byte_level(
        &["ab", "abab"],
        &[("a", "b"), ("ab", "ab")],
        MergeRule::Merges,
    );
    // Longer than the cache keeps and than the linear merge handles; `x` is a cut.
    let long = format!("{}x{}", "ab".repeat(600), "ab".repeat(3));
    assert!(long.len() > MAX_PIECE_BYTES);
    let mut expected = vec![257; 300];
    expected.extend([b'x' as u32, 257, 256]);
    assert_eq!(t.encode(&long, None).unwrap(), expected);
    assert_eq!(t.encode(&long, None).unwrap(), expected);
    assert_eq!(t.encode("ababab", None).unwrap(), [257, 256]);
    // Kept by the cache from its second sighting: merged, merged and kept, then found.
    let kept = format!("{}x{}", "ab".repeat(100), "ab".repeat(3));
    assert!((KEPT_AT_ONCE_BYTES..MAX_PIECE_BYTES).contains(&kept.len()));
    let mut expected = vec![257; 50];
    expected.extend([b'x' as u32, 257, 256]);
    for _ in 0..3 {
        assert_eq!(t.encode(&kept, None).unwrap(), expected);
    }
}

#[test]
fn dropout_ends_and_seeds() {
    let t = classic(Unknown::Error);
    let text = "lowest newest lower";
    let plain = t.encode(text, None).unwrap();
    assert_eq!(t.encode_dropout(text, None, 0.0, 7).unwrap(), plain);
    let mut initial = Vec::new();
    for word in text.split(' ') {
        let Algorithm::Bpe(bpe) = &t.algorithm else {
            unreachable!()
        };
        bpe.initial_ids(word, &mut initial).unwrap();
    }
    assert_eq!(t.encode_dropout(text, None, 1.0, 7).unwrap(), initial);
    assert!(t.encode_dropout(text, None, 1.5, 7).is_err());
    // Seeded: the same seed gives the same ids, pinned here so that a change of the
    // random numbers or of the merge order is noticed.
    let pinned = |seed| {
        t.encode_dropout("lowest lowest newest", None, 0.5, seed)
            .unwrap()
    };
    assert_eq!(pinned(1), pinned(1));
    assert_eq!(pinned(1), PINNED_SEED_1);
    assert_eq!(pinned(2), PINNED_SEED_2);
}

const PINNED_SEED_1: [u32; 13] = [0, 1, 2, 13, 15, 12, 10, 5, 3, 2, 11, 7, 10];
const PINNED_SEED_2: [u32; 14] = [14, 2, 13, 15, 11, 7, 10, 5, 3, 2, 3, 6, 7, 10];

#[test]
fn decode_round_trips() {
    let t = classic(Unknown::Error);
    let text = "lowest newer lower";
    let ids = t.encode(text, None).unwrap();
    assert_eq!(t.decode_bytes(&ids).unwrap(), text.as_bytes());
    let c = TokenizerConfig {
        pre_tokenizer: PreTokenizer::regex(GPT2).unwrap(),
        ..config(Kind::Byte, EndOfWord::None, bpe(MergeRule::Merges))
    };
    let b = Tokenizer::new(c, byte_vocab(&["ab"]), &merges(&[("a", "b")]), vec![]).unwrap();
    let text = "ab cd é 🙂";
    let ids = b.encode(text, None).unwrap();
    assert_eq!(b.decode_bytes(&ids).unwrap(), text.as_bytes());
    assert!(b.decode_bytes(&[999]).is_err());
    // Past a million ids the output's size is measured first: the same bytes, and the
    // same error for an id out of range at the end.
    let many: Vec<u32> = ids.iter().copied().cycle().take((1 << 20) + 3).collect();
    let want: Vec<u8> = (0..many.len())
        .flat_map(|i| b.decode_bytes(&many[i..=i]).unwrap())
        .collect();
    assert_eq!(b.decode_bytes(&many).unwrap(), want);
    let mut bad = many.clone();
    bad.push(999);
    let err = b.decode_bytes(&bad).unwrap_err();
    assert!(
        err.message.contains(&format!("at position {}", many.len())),
        "{}",
        err.message
    );
}

#[test]
fn built_from_byte_ranks_as_from_names() {
    let c = || TokenizerConfig {
        pre_tokenizer: PreTokenizer::regex(GPT2).unwrap(),
        ignore_merges: true,
        ..config(Kind::Byte, EndOfWord::None, bpe(MergeRule::Ranks))
    };
    let table = byte_to_unicode();
    let ranks: Vec<(Vec<u8>, u32)> = (0..=255u8)
        .map(|b| vec![b])
        .chain(
            ["ab", " ab", "abab", "ba", "é", "abababab", " abababab"]
                .map(|t| t.as_bytes().to_vec()),
        )
        .enumerate()
        .map(|(id, bytes)| (bytes, id as u32))
        .collect();
    let names: Vec<(String, u32)> = ranks
        .iter()
        .map(|(bytes, id)| (bytes.iter().map(|&b| table[b as usize]).collect(), *id))
        .collect();
    let specials = vec![("<|end|>".to_string(), 300)];
    let a = Tokenizer::new(c(), names, &[], specials.clone()).unwrap();
    // Listed out of rank order too: the bytes are then put in id order.
    let reversed = ranks.iter().rev().map(|(t, r)| (t, *r)).collect();
    let reversed = Tokenizer::from_byte_ranks(c(), reversed, specials.clone()).unwrap();
    let b = Tokenizer::from_byte_ranks(c(), ranks.into_iter().collect(), specials).unwrap();
    assert_eq!(a.token_bytes, b.token_bytes);
    assert_eq!(a.token_bytes, reversed.token_bytes);
    assert_eq!((&a.tokens, &a.vocab), (&reversed.tokens, &reversed.vocab));
    // Made from the bytes, on their own thread, the names and whole-piece table are the same.
    assert_eq!((&a.tokens, &a.vocab), (&b.tokens, &b.vocab));
    assert_eq!(a.piece_ids, b.piece_ids);
    // The merge table, found from the bytes through the whole-piece table, is the one found
    // from the names (" abababab" = " " + "abababab": a long right side).
    let merges = |t: &Tokenizer| match &t.algorithm {
        Algorithm::Bpe(bpe) => bpe.merge_table().clone(),
        _ => unreachable!("a BPE model"),
    };
    assert_eq!(merges(&a).len(), 7);
    assert_eq!(merges(&a), merges(&b));
    let text = "ab abab ba é, abba ab abababab";
    assert_eq!(a.encode(text, None).unwrap(), b.encode(text, None).unwrap());
    let ids = b.encode(text, None).unwrap();
    assert_eq!(b.decode_bytes(&ids).unwrap(), text.as_bytes());
}

#[test]
fn long_pieces_of_ranked_models_cut_and_backtrack_to_the_merged_ids() {
    let c = config(Kind::Byte, EndOfWord::None, bpe(MergeRule::Ranks));
    let tokens = [
        "aa", "ab", "aaaa", "ba", "aab", "abab", "bab", " a", " aa", "aaa", "b a",
    ];
    let ranks: Vec<(Vec<u8>, u32)> = (0..=255u8)
        .map(|b| vec![b])
        .chain(tokens.map(|t| t.as_bytes().to_vec()))
        .enumerate()
        .map(|(id, bytes)| (bytes, id as u32))
        .collect();
    // A special token with a token's text is not a second token with those bytes.
    let specials = vec![("<|end|>".to_string(), 300), ("ab".to_string(), 301)];
    let t = Tokenizer::from_byte_ranks(c, ranks.into_iter().collect(), specials).unwrap();
    let Algorithm::Bpe(bpe) = &t.algorithm else {
        panic!("a BPE model")
    };
    assert!(bpe.backtracks());
    let mut rng = crate::rng::SplitMix64::new(9);
    // Runs longer than the backtracking threshold, with no byte pair that no token joins.
    let mut texts = vec!["a".repeat(3000), "ab".repeat(1500), "aab".repeat(700) + "b"];
    for len in [49, 50, 64, 100, 333, 2000, 5000] {
        for alphabet in [&b"ab"[..], b"ab ", b"a b\xc3\xa9"] {
            let bytes: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(0, alphabet.len() as u32) as usize])
                .collect();
            texts.push(String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    for text in texts {
        let mut merged = Vec::new();
        bpe.initial_ids(&text, &mut merged).unwrap();
        crate::algorithms::merge::apply_merges(&bpe.merges, &mut merged);
        let mut ids = Vec::new();
        t.encode_piece(&text, &mut ids).unwrap();
        assert_eq!(ids, merged, "{text:?}");
    }
}

/// Distinct words enough to take the cache's tables past direct lookups (`is_small`).
pub(super) const LARGE_TABLE_WORDS: usize = 200_000;

/// Word `i` of a run of distinct words: a space and `i` in base 26, as letters.
pub(super) fn distinct_word(mut i: usize) -> String {
    let mut w = String::from(" ");
    loop {
        w.push((b'a' + (i % 26) as u8) as char);
        i /= 26;
        if i == 0 {
            return w;
        }
    }
}

/// Sets this thread's cache for `t`, whose table must be large, to look pieces up through
/// the prefetch queue until a call long enough for a trial (the tests' texts are shorter).
pub(super) fn take_the_queue(t: &Tokenizer) {
    cache::PieceCache::with(t.cache_owner, |c| {
        assert!(!c.is_small(), "the table should be past direct lookups");
        c.lookups.queue = true;
    });
}

#[test]
fn a_large_table_times_both_lookup_modes_and_keeps_the_choice() {
    // On a large table the first window of `RECHECK` pieces starts a trial: one window
    // direct, one through the queue; after the third the faster way is kept, and the
    // next trial is `TRIAL_EVERY` windows away. Ids are right in every window.
    use super::encode::{RECHECK, TRIAL_EVERY};
    let t = gpt2_ranked();
    let filler: String = (0..LARGE_TABLE_WORDS).map(distinct_word).collect();
    t.encode(&filler, None).unwrap();
    let text: String = (0..3 * RECHECK + 100)
        .map(|i| distinct_word(i % 5000))
        .collect();
    for queue in [false, true] {
        cache::PieceCache::with(t.cache_owner, |c| {
            assert!(!c.is_small());
            c.lookups = super::encode::LookupChoice::FIRST;
            c.lookups.queue = queue;
        });
        assert_eq!(
            t.encode(&text, None).unwrap(),
            uncached_ids(&t, &text, Vec::new())
        );
        let after = cache::PieceCache::with(t.cache_owner, |c| c.lookups);
        assert_eq!(after.until_trial(), TRIAL_EVERY, "{after:?}");
    }
    // A small table is looked up directly, with no trial.
    let t = gpt2_ranked();
    let text: String = (0..3 * RECHECK + 100)
        .map(|i| distinct_word(i % 50))
        .collect();
    t.encode("a", None).unwrap(); // the thread's cache, emptied for `t`
    cache::PieceCache::with(t.cache_owner, |c| {
        c.lookups = super::encode::LookupChoice::FIRST
    });
    assert_eq!(
        t.encode(&text, None).unwrap(),
        uncached_ids(&t, &text, Vec::new())
    );
    let after = cache::PieceCache::with(t.cache_owner, |c| c.lookups);
    assert_eq!(after.until_trial(), 1, "{after:?}");
}

#[test]
fn ids_stay_right_as_the_cache_grows_past_direct_lookups_and_starts_over() {
    // 300,000 distinct words in one call: the cache's table grows past the size looked up
    // directly (the queue takes over), then fills and starts over (direct lookups again).
    let t = gpt2_ranked();
    let text: String = (0..300_000).map(distinct_word).collect();
    let uncached = uncached_ids(&t, &text, Vec::new());
    assert_eq!(t.encode(&text, None).unwrap(), uncached);
    assert_eq!(t.encode(&text, None).unwrap(), uncached);
}

#[test]
fn the_queue_gives_the_ids_of_pieces_of_every_kind() {
    // Once 100,000 distinct words have grown the cache's table, pieces go through the
    // prefetch queue: short ones with their ids in their slot or (more than five ids) in
    // the arena, medium and long ones, each found the first time and in the cache after,
    // with texts shorter than the queue and longer.
    let t = gpt2_ranked();
    let filler: String = (0..LARGE_TABLE_WORDS).map(distinct_word).collect();
    t.encode(&filler, None).unwrap();
    take_the_queue(&t);
    let words = [
        " ab",
        "ab",
        " abab",
        " xyz",
        " zqxjkv",
        " wvutsrq",
        " abcdefgh",
        " ababababab",
        " qwertyuiopasdfg",
        " thequickbrownfoxjumpsoverthelazydog",
        "!?",
        "  ",
        "\n",
    ];
    let mut rng = crate::rng::SplitMix64::new(7);
    let mut texts: Vec<String> = (1..=40)
        .map(|n| {
            (0..n)
                .map(|_| words[rng.below(0, words.len() as u32) as usize])
                .collect()
        })
        .collect();
    texts.push(words.concat());
    for text in &texts {
        let uncached = uncached_ids(&t, text, Vec::new());
        assert_eq!(t.encode(text, None).unwrap(), uncached, "{text:?}");
        assert_eq!(t.encode(text, None).unwrap(), uncached, "{text:?} again");
    }
}
