//! Property tests of the core's entry points that take user data (the parts of a model
//! file, compressed bytes, ranked vocabularies, subword-nmt codes): whatever they are given,
//! they return `Ok` or `Err`, never panic, and never allocate in proportion to an id.
//! The Python layer checks most of this too; the core must be safe on its own.

use proptest::prelude::*;

use crate::algorithms::bpe::MergeRule;
use crate::algorithms::{AlgorithmConfig, Unknown};
use crate::nmt::apply::{CodesVersion, Segmenter};
use crate::normalize::Normalizer;
use crate::pipeline::{Tokenizer, TokenizerConfig};
use crate::pretokenize::PreTokenizer;
use crate::symbols::{EndOfWord, Kind, SymbolRules};

/// Few cases each: together they add a few seconds to `cargo test`.
fn cases(n: u32) -> ProptestConfig {
    ProptestConfig {
        cases: n,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Short strings from a small alphabet (so that merges and tokens meet), with the
/// end-of-word symbol, empty strings and a multi-byte character among them.
fn symbol() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[abc]{1,3}",
        1 => Just(String::new()),
        1 => Just("</w>".to_string()),
        1 => Just("a</w>".to_string()),
        1 => Just("##a".to_string()),
        1 => Just("é".to_string()),
        1 => Just("<unk>".to_string()),
    ]
}

/// Ids: mostly small (collisions), some huge (allocation), u32::MAX (overflow of + 1).
fn id() -> impl Strategy<Value = u32> {
    prop_oneof![
        6 => 0u32..40,
        1 => Just(u32::MAX),
        1 => Just(u32::MAX - 1),
        1 => 1_000_000u32..u32::MAX,
    ]
}

fn config() -> impl Strategy<Value = TokenizerConfig> {
    (
        prop_oneof![Just(Kind::Classic), Just(Kind::Byte)],
        prop_oneof![
            Just(EndOfWord::Separate),
            Just(EndOfWord::Attached),
            Just(EndOfWord::None)
        ],
        prop_oneof![
            Just(AlgorithmConfig::Bpe {
                merge_rule: MergeRule::Merges
            }),
            Just(AlgorithmConfig::Bpe {
                merge_rule: MergeRule::Ranks
            }),
            Just(AlgorithmConfig::Greedy {
                prefix: "##".into()
            }),
            Just(AlgorithmConfig::Greedy {
                prefix: String::new()
            }),
        ],
        prop_oneof![Just(Unknown::Error), id().prop_map(Unknown::Unk)],
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(kind, end_of_word, algorithm, unknown, ignore_merges, specials_in_pattern)| {
                TokenizerConfig {
                    normalizer: Normalizer::default(),
                    pre_tokenizer: PreTokenizer::Whitespace,
                    rules: SymbolRules {
                        kind,
                        end_of_word,
                        end_of_word_symbol: "</w>".into(),
                    },
                    ignore_merges,
                    unknown,
                    algorithm,
                    specials_in_pattern,
                }
            },
        )
}

proptest! {
    #![proptest_config(cases(3000))]

    #[test]
    fn tokenizer_new_never_panics(
        config in config(),
        vocab in prop::collection::vec((symbol(), id()), 0..12),
        merges in prop::collection::vec((symbol(), symbol()), 0..10),
        specials in prop::collection::vec((symbol(), id()), 0..3),
    ) {
        // A built tokenizer must also encode and decode without panicking.
        if let Ok(tok) = Tokenizer::new(config, vocab, &merges, specials) {
            let _ = tok.encode("abc a</w> é ##a <unk> cab", None);
            let ids: Vec<u32> = (0..45).chain([u32::MAX]).collect();
            for id in ids {
                let _ = tok.decode_bytes(&[id]);
            }
        }
    }
}

proptest! {
    #![proptest_config(cases(1500))]

    #[test]
    fn decompress_never_panics(data in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = crate::compress::decompress(&data);
    }

    #[test]
    fn decompress_never_panics_on_damaged_output(
        text in prop::collection::vec(0u8..4, 0..300),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        cut in any::<prop::sample::Index>(),
    ) {
        // Valid files with one byte changed and cut short reach deeper than random bytes.
        if let Ok(mut packed) = crate::compress::compress(&text, 64) {
            let i = at.index(packed.len());
            packed[i] = byte;
            packed.truncate(cut.index(packed.len() + 1));
            let _ = crate::compress::decompress(&packed);
        }
    }

    #[test]
    fn recover_merge_cuts_never_panics(
        tokens in prop::collection::vec(
            (prop::collection::vec(0u8..4, 0..5), prop_oneof![0u32..30, Just(u32::MAX)]),
            0..20,
        ),
    ) {
        let refs: Vec<(&[u8], u32)> = tokens.iter().map(|(t, r)| (t.as_slice(), *r)).collect();
        let cuts = crate::algorithms::ranks::recover_merge_cuts(&refs);
        prop_assert_eq!(cuts.len(), tokens.len());
    }

    #[test]
    fn nmt_segmenter_never_panics(
        merges in prop::collection::vec((symbol(), symbol()), 0..12),
        v0_2 in any::<bool>(),
        vocabulary in prop::option::of(prop::collection::vec(symbol(), 0..6)),
    ) {
        let version = if v0_2 { CodesVersion::V0_2 } else { CodesVersion::V0_1 };
        if let Ok(mut segmenter) = Segmenter::new(&merges, version, "@@", vocabulary, false, 7) {
            let _ = segmenter.process_line("abc cab a</w> é ##a aaaa\n", 0.0);
            let _ = segmenter.process_line("abcabc bca", 0.5);
        }
    }
}

#[test]
fn tokenizer_new_refuses_huge_ids_before_allocating() {
    let config = TokenizerConfig {
        normalizer: Normalizer::default(),
        pre_tokenizer: PreTokenizer::Whitespace,
        rules: SymbolRules {
            kind: Kind::Classic,
            end_of_word: EndOfWord::Separate,
            end_of_word_symbol: "</w>".into(),
        },
        ignore_merges: false,
        unknown: Unknown::Error,
        algorithm: AlgorithmConfig::Bpe {
            merge_rule: MergeRule::Merges,
        },
        specials_in_pattern: false,
    };
    let vocab = vec![("a".to_string(), 0), ("b".to_string(), u32::MAX)];
    let err = Tokenizer::new(config.clone(), vocab, &[], vec![]).unwrap_err();
    assert!(err.message.contains("id 4294967295"), "{}", err.message);
    let specials = vec![("<s>".to_string(), 3_000_000)];
    let err = Tokenizer::new(config, vec![("a".into(), 0)], &[], specials).unwrap_err();
    assert!(err.message.contains("id 3000000"), "{}", err.message);
}
