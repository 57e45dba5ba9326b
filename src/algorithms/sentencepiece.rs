//! SentencePiece's BPE: a piece's characters (a user-defined symbol counts as one, and
//! never merges) are merged pair by pair, always the adjacent pair whose concatenation is
//! the vocabulary entry with the highest score, the leftmost one among equal scores. A
//! result that is an *unused* entry is split back into the two symbols that formed it. A
//! symbol with no id becomes its UTF-8 bytes (`<0xNN>` pieces) under byte fallback, the
//! unknown id otherwise.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use aho_corasick::{AhoCorasick, Anchored, Input};
use rustc_hash::FxHashMap;

use super::UnknownChar;
use crate::error::{Error, Result};
use crate::formats::sentencepiece::{byte_value, PieceType, SentencePieceModel};
use crate::normalize::sentencepiece::prefix_matcher;

#[derive(Debug, Clone, Copy)]
struct Entry {
    id: u32,
    score: f32,
    unused: bool,
}

#[derive(Debug, Clone)]
pub struct SentencePieceBpe {
    /// Entries merges may build (normal, user-defined, unused), by text.
    mergeable: FxHashMap<Box<str>, Entry>,
    /// The other entries (control, unknown, byte), by text: a symbol is looked up here first.
    reserved: FxHashMap<Box<str>, u32>,
    user_defined: Option<AhoCorasick>,
    unk_id: u32,
    /// Byte fallback: the id of each byte's `<0xNN>` piece.
    byte_ids: Option<Box<[u32; 256]>>,
    has_unused: bool,
}

impl SentencePieceBpe {
    pub fn new(model: &SentencePieceModel) -> Result<Self> {
        let mut mergeable = FxHashMap::default();
        let mut reserved = FxHashMap::default();
        let mut user_defined = Vec::new();
        let mut unk_id = None;
        let mut byte_ids = [u32::MAX; 256];
        for (id, piece) in model.pieces.iter().enumerate() {
            let id = id as u32;
            let duplicate = if piece.kind.is_mergeable() {
                let entry = Entry {
                    id,
                    score: piece.score,
                    unused: piece.kind == PieceType::Unused,
                };
                mergeable
                    .insert(piece.text.as_str().into(), entry)
                    .is_some()
            } else {
                reserved.insert(piece.text.as_str().into(), id).is_some()
            };
            if duplicate {
                return Err(Error::invalid(format!(
                    "piece {:?} appears twice in the model (the second time as id {id})",
                    piece.text
                )));
            }
            match piece.kind {
                PieceType::UserDefined => user_defined.push(piece.text.as_str()),
                PieceType::Unknown => unk_id = Some(id),
                PieceType::Byte => {
                    if let Some(b) = byte_value(&piece.text) {
                        byte_ids[b as usize] = id;
                    }
                }
                _ => {}
            }
        }
        let unk_id =
            unk_id.ok_or_else(|| Error::invalid("the model has no unknown piece (<unk>)"))?;
        let byte_ids = if model.byte_fallback {
            if byte_ids.contains(&u32::MAX) {
                return Err(Error::invalid(
                    "byte_fallback is on but some of the 256 <0xNN> pieces are missing",
                ));
            }
            Some(Box::new(byte_ids))
        } else {
            None
        };
        let user_defined = if user_defined.is_empty() {
            None
        } else {
            Some(prefix_matcher(&user_defined)?)
        };
        let has_unused = mergeable.values().any(|e| e.unused);
        Ok(SentencePieceBpe {
            mergeable,
            reserved,
            user_defined,
            unk_id,
            byte_ids,
            has_unused,
        })
    }

    /// Whether pieces may be cut before each `▁` that follows another character: true when
    /// no entry that merges can build holds such a `▁` (whitespace-only entries like `▁▁`
    /// are fine), so no merge ever crosses the cut.
    /// Runs of unknown symbols become one id, so without byte fallback `▁` itself must be
    /// known for a run never to reach across a cut.
    pub fn cuts_at_spaces(model: &SentencePieceModel) -> bool {
        let space_known = model
            .pieces
            .iter()
            .any(|p| p.kind.is_mergeable() && p.text == "\u{2581}");
        (model.byte_fallback || space_known)
            && model
                .pieces
                .iter()
                .all(|p| !p.kind.is_mergeable() || !has_space_after_other(&p.text))
    }

    /// Appends the ids of one piece.
    pub fn encode_word(
        &self,
        piece: &str,
        out: &mut Vec<u32>,
    ) -> std::result::Result<(), UnknownChar> {
        self.encode_with_spans(piece, out, None);
        Ok(())
    }

    /// Appends the ids of one piece and, with `spans`, the byte span within `piece` of each
    /// (a byte-fallback token spans its one byte; a run of unknown characters, the run).
    pub fn encode_with_spans(
        &self,
        piece: &str,
        out: &mut Vec<u32>,
        mut spans: Option<&mut Vec<(usize, usize)>>,
    ) {
        let mut symbols = self.initial_symbols(piece);
        let mut splits = FxHashMap::default();
        self.merge(piece, &mut symbols, &mut splits);
        let start = out.len();
        let mut index = if symbols.is_empty() { NONE } else { 0 };
        while index != NONE {
            let s = symbols[index as usize];
            let text = &piece[s.start as usize..s.end as usize];
            let mut emit = Emit {
                splits: &splits,
                out: &mut *out,
                start,
                spans: spans.as_deref_mut(),
            };
            self.emit(text, s.start as usize, &mut emit);
            index = s.next;
        }
    }

    fn initial_symbols(&self, piece: &str) -> Vec<Symbol> {
        let mut symbols = Vec::with_capacity(piece.len());
        let mut at = 0;
        while at < piece.len() {
            let rest = &piece[at..];
            let (len, frozen) = match self
                .user_defined
                .as_ref()
                .and_then(|m| m.find(Input::new(rest).anchored(Anchored::Yes)))
            {
                Some(m) if m.end() > 0 => (m.end(), true),
                _ => (
                    rest.chars().next().map_or(rest.len(), char::len_utf8),
                    false,
                ),
            };
            let index = symbols.len() as u32;
            symbols.push(Symbol {
                start: at as u32,
                end: (at + len) as u32,
                prev: if index == 0 { NONE } else { index - 1 },
                next: if at + len < piece.len() {
                    index + 1
                } else {
                    NONE
                },
                frozen,
            });
            at += len;
        }
        symbols
    }

    /// The merge loop: a queue of candidate pairs, best first; a candidate whose symbols
    /// changed since it was queued is skipped when it comes up.
    fn merge<'p>(
        &self,
        piece: &'p str,
        symbols: &mut [Symbol],
        splits: &mut FxHashMap<&'p str, (&'p str, &'p str)>,
    ) {
        let mut queue = BinaryHeap::with_capacity(symbols.len());
        let candidate =
            |symbols: &[Symbol],
             left: u32,
             right: u32,
             queue: &mut BinaryHeap<Candidate>,
             splits: &mut FxHashMap<&'p str, (&'p str, &'p str)>| {
                if left == NONE || right == NONE {
                    return;
                }
                let (l, r) = (symbols[left as usize], symbols[right as usize]);
                if l.frozen || r.frozen {
                    return;
                }
                let joined = &piece[l.start as usize..r.end as usize];
                let Some(entry) = self.mergeable.get(joined) else {
                    return;
                };
                queue.push(Candidate {
                    score: entry.score,
                    left,
                    right,
                    len: joined.len() as u32,
                });
                if entry.unused {
                    // As SentencePiece records it: the last pair queued for this entry.
                    splits.insert(
                        joined,
                        (
                            &piece[l.start as usize..l.end as usize],
                            &piece[r.start as usize..r.end as usize],
                        ),
                    );
                }
            };
        for i in 1..symbols.len() as u32 {
            candidate(symbols, i - 1, i, &mut queue, splits);
        }
        while let Some(top) = queue.pop() {
            let (l, r) = (symbols[top.left as usize], symbols[top.right as usize]);
            if l.is_empty() || r.is_empty() || l.len() + r.len() != top.len {
                continue;
            }
            let left = &mut symbols[top.left as usize];
            left.end = r.end;
            left.next = r.next;
            if r.next != NONE {
                symbols[r.next as usize].prev = top.left;
            }
            symbols[top.right as usize].end = symbols[top.right as usize].start;
            let prev = symbols[top.left as usize].prev;
            let next = symbols[top.left as usize].next;
            candidate(symbols, prev, top.left, &mut queue, splits);
            candidate(symbols, top.left, next, &mut queue, splits);
        }
    }

    fn id_of(&self, text: &str) -> (u32, bool) {
        if let Some(&id) = self.reserved.get(text) {
            return (id, false);
        }
        match self.mergeable.get(text) {
            Some(entry) => (entry.id, entry.unused),
            None => (self.unk_id, false),
        }
    }

    /// Appends the ids of a merged symbol found at byte `at` of its piece: unused entries
    /// split back, unknown text as bytes, or as the unknown id — once for a run of unknown
    /// symbols, as SentencePiece joins them.
    fn emit(&self, text: &str, at: usize, emit: &mut Emit<'_, '_>) {
        let (id, unused) = self.id_of(text);
        if unused && self.has_unused {
            if let Some((left, right)) = emit.splits.get(text) {
                self.emit(left, at, emit);
                self.emit(right, at + left.len(), emit);
                return;
            }
        }
        let end = at + text.len();
        match (&self.byte_ids, id == self.unk_id) {
            (Some(bytes), true) => {
                emit.out.extend(text.bytes().map(|b| bytes[b as usize]));
                if let Some(spans) = emit.spans.as_deref_mut() {
                    spans.extend((at..end).map(|k| (k, k + 1)));
                }
            }
            (None, true)
                if emit.out.len() > emit.start && emit.out.last() == Some(&self.unk_id) =>
            {
                if let Some(last) = emit.spans.as_deref_mut().and_then(|s| s.last_mut()) {
                    last.1 = end;
                }
            }
            _ => {
                emit.out.push(id);
                if let Some(spans) = emit.spans.as_deref_mut() {
                    spans.push((at, end));
                }
            }
        }
    }
}

/// Where `emit` writes: the ids (this piece's start at `start`) and, when asked, spans.
struct Emit<'s, 'o> {
    splits: &'s FxHashMap<&'s str, (&'s str, &'s str)>,
    out: &'o mut Vec<u32>,
    start: usize,
    spans: Option<&'o mut Vec<(usize, usize)>>,
}

/// Whether `text` holds a `▁` right after a character that is not `▁`.
fn has_space_after_other(text: &str) -> bool {
    let mut previous = None;
    for c in text.chars() {
        if c == '\u{2581}' && previous.is_some_and(|p| p != '\u{2581}') {
            return true;
        }
        previous = Some(c);
    }
    false
}

const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Symbol {
    start: u32,
    end: u32,
    prev: u32,
    next: u32,
    frozen: bool,
}

impl Symbol {
    fn len(&self) -> u32 {
        self.end - self.start
    }

    fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// A pair waiting in the queue: the higher score first, then the leftmost.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    score: f32,
    left: u32,
    right: u32,
    len: u32,
}

impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then_with(|| other.left.cmp(&self.left))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Candidate {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::sentencepiece::{NormalizerSettings, Piece};

    fn model(pieces: &[(&str, f32, PieceType)], byte_fallback: bool) -> SentencePieceModel {
        let mut all: Vec<Piece> = pieces
            .iter()
            .map(|&(text, score, kind)| Piece {
                text: text.to_string(),
                score,
                kind,
            })
            .collect();
        if byte_fallback {
            all.extend((0..=255u8).map(|b| Piece {
                text: format!("<0x{b:02X}>"),
                score: 0.0,
                kind: PieceType::Byte,
            }));
        }
        SentencePieceModel {
            pieces: all,
            byte_fallback,
            unk_surface: " \u{2047} ".to_string(),
            normalizer: NormalizerSettings {
                name: "identity".to_string(),
                charsmap: Vec::new(),
                add_dummy_prefix: true,
                remove_extra_whitespaces: false,
                escape_whitespaces: true,
            },
        }
    }

    const BASE: &[(&str, f32, PieceType)] = &[
        ("<unk>", 0.0, PieceType::Unknown),
        ("<s>", 0.0, PieceType::Control),
        ("ab", -1.0, PieceType::Normal),
        ("bc", -1.0, PieceType::Normal),
        ("abc", -2.0, PieceType::Normal),
        ("cd", -3.0, PieceType::Normal),
        ("a", -10.0, PieceType::Normal),
        ("b", -10.0, PieceType::Normal),
        ("c", -10.0, PieceType::Normal),
        ("d", -10.0, PieceType::Normal),
        ("\u{2581}", -10.0, PieceType::Normal),
        ("[M]", 0.0, PieceType::UserDefined),
    ];

    fn encode(m: &SentencePieceModel, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        SentencePieceBpe::new(m)
            .unwrap()
            .encode_word(text, &mut out)
            .unwrap();
        out
    }

    #[test]
    fn highest_score_first_leftmost_on_ties() {
        let m = model(BASE, false);
        // ab and bc tie: the leftmost (ab) merges, then ab+c builds abc.
        assert_eq!(encode(&m, "abc"), vec![4]);
        // b c d: bc (-1) before cd (-3).
        assert_eq!(encode(&m, "bcd"), vec![3, 9]);
    }

    #[test]
    fn user_defined_symbols_never_merge() {
        let m = model(BASE, false);
        assert_eq!(encode(&m, "a[M]b"), vec![6, 11, 7]);
    }

    #[test]
    fn unknown_runs_are_one_unk_or_bytes() {
        let m = model(BASE, false);
        assert_eq!(encode(&m, "aéé"), vec![6, 0]);
        assert_eq!(encode(&m, "éaé"), vec![0, 6, 0]);
        let bytes = model(BASE, true);
        let first_byte = BASE.len() as u32;
        let e = "é".as_bytes();
        assert_eq!(
            encode(&bytes, "aé"),
            vec![6, first_byte + e[0] as u32, first_byte + e[1] as u32]
        );
    }

    #[test]
    fn unused_entries_are_split_back() {
        let mut pieces = BASE.to_vec();
        pieces[4].2 = PieceType::Unused; // abc
        let m = model(&pieces, false);
        assert_eq!(encode(&m, "abc"), vec![2, 8]);
    }

    #[test]
    fn cutting_at_spaces_only_where_no_entry_crosses() {
        assert!(SentencePieceBpe::cuts_at_spaces(&model(BASE, false)));
        let mut pieces = BASE.to_vec();
        pieces.push(("\u{2581}\u{2581}", -5.0, PieceType::Normal));
        assert!(SentencePieceBpe::cuts_at_spaces(&model(&pieces, false)));
        pieces.push(("a\u{2581}b", -5.0, PieceType::Normal));
        assert!(!SentencePieceBpe::cuts_at_spaces(&model(&pieces, false)));
        // Without byte fallback, `▁` itself must be known.
        let no_space: Vec<_> = BASE.iter().copied().filter(|p| p.0 != "\u{2581}").collect();
        assert!(!SentencePieceBpe::cuts_at_spaces(&model(&no_space, false)));
        assert!(SentencePieceBpe::cuts_at_spaces(&model(&no_space, true)));
    }

    #[test]
    fn spans_cover_the_piece() {
        let m = model(BASE, true);
        let sp = SentencePieceBpe::new(&m).unwrap();
        let (mut ids, mut spans) = (Vec::new(), Vec::new());
        sp.encode_with_spans("abcé", &mut ids, Some(&mut spans));
        assert_eq!(ids.len(), spans.len());
        assert_eq!(spans, vec![(0, 3), (3, 4), (4, 5)]);
    }
}
