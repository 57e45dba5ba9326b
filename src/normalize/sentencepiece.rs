//! SentencePiece's normalizer: a precompiled character map (rewrite rules such as NFKC,
//! stored as a double-array trie over UTF-8 bytes plus the replacement strings), then the
//! whitespace rules — drop leading, trailing and repeated spaces (`remove_extra_whitespaces`),
//! add a space in front (`add_dummy_prefix`), and write every space as `▁` U+2581
//! (`escape_whitespaces`). User-defined symbols are copied as they are.

use aho_corasick::{AhoCorasick, Anchored, Input, MatchKind, StartKind};

use crate::error::{Error, Result};
use crate::formats::sentencepiece::NormalizerSettings;

pub const SPACE_SYMBOL: &str = "\u{2581}";

#[derive(Debug, Clone)]
pub struct SentencePieceNormalizer {
    charsmap: Option<CharsMap>,
    user_defined: Option<AhoCorasick>,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
    escape_whitespaces: bool,
}

impl SentencePieceNormalizer {
    pub fn new(settings: &NormalizerSettings, user_defined: &[&str]) -> Result<Self> {
        let charsmap = if settings.charsmap.is_empty() {
            None
        } else {
            Some(CharsMap::parse(&settings.charsmap)?)
        };
        let user_defined = if user_defined.is_empty() {
            None
        } else {
            Some(prefix_matcher(user_defined)?)
        };
        Ok(SentencePieceNormalizer {
            charsmap,
            user_defined,
            add_dummy_prefix: settings.add_dummy_prefix,
            remove_extra_whitespaces: settings.remove_extra_whitespaces,
            escape_whitespaces: settings.escape_whitespaces,
        })
    }

    pub fn adds_dummy_prefix(&self) -> bool {
        self.add_dummy_prefix
    }

    pub fn removes_extra_whitespace(&self) -> bool {
        self.remove_extra_whitespaces
    }

    pub fn normalize(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + text.len() / 4 + 3);
        self.normalize_into(text, &mut out, None);
        out
    }

    /// Normalizes `text` into `out`; with `origin`, also the byte offset in `text` that each
    /// byte of `out` comes from (as SentencePiece aligns them), plus one entry for the end.
    pub fn normalize_into(
        &self,
        text: &str,
        out: &mut String,
        mut origin: Option<&mut Vec<usize>>,
    ) {
        let space: &str = if self.escape_whitespaces {
            SPACE_SYMBOL
        } else {
            " "
        };
        let mut input = text;
        let mut consumed = 0;
        if self.remove_extra_whitespaces {
            while !input.is_empty() {
                let (replaced, used) = self.prefix(input);
                if replaced != " " {
                    break;
                }
                input = &input[used..];
                consumed += used;
            }
        }
        if input.is_empty() {
            if let Some(origin) = origin {
                origin.push(text.len());
            }
            return;
        }
        let mut push = |out: &mut String, s: &str, from: usize| {
            out.push_str(s);
            if let Some(origin) = origin.as_deref_mut() {
                origin.extend(std::iter::repeat_n(from, s.len()));
            }
        };
        if self.add_dummy_prefix {
            push(out, space, consumed);
        }
        let mut previous_space = self.remove_extra_whitespaces;
        while !input.is_empty() {
            let (replaced, used) = self.prefix(input);
            let mut piece = replaced;
            if previous_space {
                piece = piece.trim_start_matches(' ');
            }
            if !piece.is_empty() {
                for part in piece.split_inclusive(' ') {
                    match part.strip_suffix(' ') {
                        Some(word) => {
                            push(out, word, consumed);
                            push(out, space, consumed);
                        }
                        None => push(out, part, consumed),
                    }
                }
                previous_space = piece.ends_with(' ');
            }
            consumed += used;
            input = &input[used..];
            if !self.remove_extra_whitespaces {
                previous_space = false;
            }
        }
        if self.remove_extra_whitespaces {
            while out.ends_with(space) {
                out.truncate(out.len() - space.len());
                if let Some(origin) = origin.as_deref_mut() {
                    origin.truncate(out.len());
                }
            }
        }
        if let Some(origin) = origin {
            origin.push(text.len());
        }
    }

    /// The normalized form of the start of `input` and how many bytes of it that consumed: a
    /// user-defined symbol as it is, else the longest rule of the character map, else one
    /// character unchanged.
    fn prefix<'a>(&'a self, input: &'a str) -> (&'a str, usize) {
        if let Some(matcher) = &self.user_defined {
            let anchored = Input::new(input).anchored(Anchored::Yes);
            if let Some(m) = matcher.find(anchored) {
                return (&input[..m.end()], m.end());
            }
        }
        if let Some(map) = &self.charsmap {
            if let Some((replaced, used)) = map.longest_rule(input.as_bytes()) {
                // Rules are over whole characters; one that would end inside a character
                // (a damaged map) is ignored rather than cutting the text there.
                if input.is_char_boundary(used) {
                    return (replaced, used);
                }
            }
        }
        let used = input.chars().next().map_or(input.len(), char::len_utf8);
        (&input[..used], used)
    }
}

/// Leftmost-longest matching of `symbols`, anchored at the start of the input.
pub fn prefix_matcher(symbols: &[&str]) -> Result<AhoCorasick> {
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .start_kind(StartKind::Anchored)
        .build(symbols)
        .map_err(|e| Error::invalid(format!("user-defined symbols: {e}")))
}

/// SentencePiece's precompiled character map: a 4-byte little-endian size, a double-array
/// trie (Darts) of that many bytes whose leaves point into the replacement strings that
/// follow (each ended by a NUL byte).
#[derive(Debug, Clone)]
struct CharsMap {
    units: Vec<u32>,
    strings: Vec<u8>,
}

/// Darts caps a prefix search at this many matches; SentencePiece takes the longest of them.
const MAX_MATCHES: usize = 32;

impl CharsMap {
    fn parse(blob: &[u8]) -> Result<Self> {
        let damaged = |what: &str| {
            Error::invalid(format!(
                "the normalizer's precompiled_charsmap is damaged ({what})"
            ))
        };
        let size_bytes: [u8; 4] = blob
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| damaged("shorter than its header"))?;
        let size = u32::from_le_bytes(size_bytes) as usize;
        if !size.is_multiple_of(4) || size == 0 || blob.len() < 4 + size {
            return Err(damaged("its trie size does not fit the data"));
        }
        let units = blob[4..4 + size]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(CharsMap {
            units,
            strings: blob[4 + size..].to_vec(),
        })
    }

    /// The replacement of the longest rule matching the start of `key`, and its length.
    fn longest_rule(&self, key: &[u8]) -> Option<(&str, usize)> {
        let unit = |pos: usize| self.units.get(pos).copied();
        let offset = |u: u32| ((u >> 10) << ((u & (1 << 9)) >> 6)) as usize;
        let label = |u: u32| u & ((1 << 31) | 0xFF);
        let has_leaf = |u: u32| (u >> 8) & 1 == 1;
        let value = |u: u32| (u & ((1 << 31) - 1)) as usize;
        let mut node = offset(unit(0)?);
        let mut best = None;
        let mut matches = 0;
        for (i, &byte) in key.iter().enumerate() {
            node ^= byte as usize;
            let Some(u) = unit(node).filter(|&u| label(u) == byte as u32) else {
                break;
            };
            node ^= offset(u);
            if has_leaf(u) {
                let Some(leaf) = unit(node) else { break };
                if matches == MAX_MATCHES {
                    break;
                }
                matches += 1;
                best = Some((value(leaf), i + 1));
            }
        }
        let (start, length) = best?;
        let tail = self.strings.get(start..)?;
        let end = tail.iter().position(|&b| b == 0)?;
        let replaced = std::str::from_utf8(&tail[..end]).ok()?;
        Some((replaced, length))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    fn settings(dummy: bool, extra: bool, charsmap: Vec<u8>) -> NormalizerSettings {
        NormalizerSettings {
            name: String::new(),
            charsmap,
            add_dummy_prefix: dummy,
            remove_extra_whitespaces: extra,
            escape_whitespaces: true,
        }
    }

    #[test]
    fn whitespace_rules() {
        let n = SentencePieceNormalizer::new(&settings(true, true, Vec::new()), &[]).unwrap();
        assert_eq!(n.normalize("  a  b  "), "▁a▁b");
        assert_eq!(n.normalize("   "), "");
        let keep = SentencePieceNormalizer::new(&settings(true, false, Vec::new()), &[]).unwrap();
        assert_eq!(keep.normalize(" a b "), "▁▁a▁b▁");
        let bare = SentencePieceNormalizer::new(&settings(false, true, Vec::new()), &[]).unwrap();
        assert_eq!(bare.normalize("a\tb c"), "a\tb▁c");
    }

    #[test]
    fn alignment_has_one_entry_per_byte_and_the_end() {
        let n = SentencePieceNormalizer::new(&settings(true, true, Vec::new()), &["[M]"]).unwrap();
        let (mut out, mut origin) = (String::new(), Vec::new());
        n.normalize_into(" x  [M] é ", &mut out, Some(&mut origin));
        assert_eq!(out, "▁x▁[M]▁é");
        assert_eq!(origin.len(), out.len() + 1);
        assert!(origin.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(*origin.last().unwrap(), " x  [M] é ".len());
    }

    #[test]
    fn damaged_character_maps_are_errors_or_ignored_never_panics() {
        for blob in [
            vec![],
            vec![1, 0],
            vec![8, 0, 0, 0, 1, 2, 3],
            vec![3, 0, 0, 0, 1, 2, 3],
        ] {
            assert!(CharsMap::parse(&blob).is_err() || blob.is_empty());
        }
        // Random tries: every lookup stays in bounds.
        let mut rng = SplitMix64::new(7);
        for _ in 0..200 {
            let units = 1 + (rng.next_u64() % 64) as usize;
            let mut blob = ((units * 4) as u32).to_le_bytes().to_vec();
            for _ in 0..units * 4 + 16 {
                blob.push(rng.next_u64() as u8);
            }
            let map = CharsMap::parse(&blob).unwrap();
            let key: Vec<u8> = (0..8).map(|_| rng.next_u64() as u8).collect();
            let _ = map.longest_rule(&key);
            let n = SentencePieceNormalizer::new(&settings(true, true, blob), &[]).unwrap();
            let _ = n.normalize("some text, ünï 한국");
        }
    }
}
