//! WordPiece-style greedy longest match: at each position of a piece, the longest token
//! that matches; a character no token starts with becomes the unknown token (or an error).
//! Tokens after the first of a piece take their continuation form, `prefix` + token
//! (`##` by default), so decoding knows where words start.

use rustc_hash::FxHashMap;

use super::{Unknown, UnknownChar, Vocab};
use crate::error::{Error, Result};
use crate::symbols::{EndOfWord, Kind, SymbolRules};

#[derive(Debug, Clone)]
pub struct Greedy {
    /// Plain token text → (id, continuation id).
    table: FxHashMap<String, (u32, u32)>,
    /// The longest plain token, in characters.
    max_chars: usize,
    /// id → whether it is a continuation token, for decoding.
    continuation: Vec<bool>,
    prefix: String,
    unknown: Unknown,
    /// The continuation form of the unknown token (`##<unk>`), for an unknown character
    /// after a word's first token, so that decoding does not start a word there. Models
    /// whose vocabulary lacks it use the plain unknown token.
    unknown_continuation: Option<u32>,
}

impl Greedy {
    /// The tables for `vocab` (`ids` ids in all, specials included): every plain token
    /// needs its continuation form in the vocabulary.
    pub fn new(
        vocab: &Vocab,
        ids: usize,
        prefix: &str,
        rules: &SymbolRules,
        unknown: Unknown,
    ) -> Result<Self> {
        if rules.end_of_word != EndOfWord::None || rules.kind != Kind::Classic {
            return Err(Error::invalid(
                "greedy matching works on classic models without an end-of-word symbol \
                 (kind=\"classic\", end_of_word=\"none\")",
            ));
        }
        let mut greedy = Greedy {
            table: FxHashMap::default(),
            max_chars: 0,
            continuation: vec![false; ids],
            prefix: prefix.to_string(),
            unknown,
            unknown_continuation: None,
        };
        let unk = match unknown {
            Unknown::Unk(id) => Some(id),
            Unknown::Error => None,
        };
        for (token, &id) in vocab.iter() {
            if Some(id) == unk {
                greedy.unknown_continuation = vocab.get(&format!("{prefix}{token}")).copied();
                continue;
            }
            if let Some(stem) = token.strip_prefix(prefix) {
                if !stem.is_empty() && vocab.contains_key(stem) {
                    greedy.continuation[id as usize] = true;
                    continue;
                }
            }
            let cont = vocab
                .get(&format!("{prefix}{token}"))
                .copied()
                .ok_or_else(|| {
                    Error::invalid(format!(
                        "greedy model: token {token:?} has no continuation form {:?} in the \
                     vocabulary",
                        format!("{prefix}{token}")
                    ))
                })?;
            greedy.max_chars = greedy.max_chars.max(token.chars().count());
            greedy.table.insert(token.to_string(), (id, cont));
        }
        Ok(greedy)
    }

    /// Whether `id` is a continuation token (`prefix` + a token).
    pub fn is_continuation(&self, id: u32) -> bool {
        self.continuation.get(id as usize) == Some(&true)
    }

    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Encodes one piece, appending its ids.
    pub fn encode_word(
        &self,
        piece: &str,
        out: &mut Vec<u32>,
    ) -> std::result::Result<(), UnknownChar> {
        // Character boundaries, so candidate lengths are counted in characters.
        let bounds: Vec<usize> = piece
            .char_indices()
            .map(|(b, _)| b)
            .chain([piece.len()])
            .collect();
        let chars = bounds.len() - 1;
        let mut at = 0;
        while at < chars {
            let longest = self.max_chars.min(chars - at);
            let found = (1..=longest).rev().find_map(|n| {
                self.table
                    .get(&piece[bounds[at]..bounds[at + n]])
                    .map(|&ids| (n, ids))
            });
            match found {
                Some((n, (id, cont))) => {
                    out.push(if at == 0 { id } else { cont });
                    at += n;
                }
                None => {
                    let c = piece[bounds[at]..].chars().next().unwrap_or('\u{fffd}');
                    match self.unknown {
                        Unknown::Unk(id) if at > 0 => {
                            out.push(self.unknown_continuation.unwrap_or(id))
                        }
                        Unknown::Unk(id) => out.push(id),
                        Unknown::Error => {
                            return Err(UnknownChar {
                                byte: bounds[at],
                                c,
                            })
                        }
                    }
                    at += 1;
                }
            }
        }
        Ok(())
    }
}
