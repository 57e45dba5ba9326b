//! CLIP's pattern (`super::super::CLIP`) by hand, giving exactly the pieces fancy-regex
//! gives for it with the Python `regex` module's classes written out. Unlike the GPT-style
//! patterns, CLIP's does not cover every character: whitespace (and U+0345) starts no
//! branch and is dropped, as CLIP's `re.findall` drops it.
//!
//! At each position the branches are tried in the pattern's order: the two special tokens
//! (`<|startoftext|>` also with `ſ`), the contractions, a run of letters, one number, a run
//! of other characters. No quantifier here ever backs off: nothing follows a run.

use super::{Scan, CLIP_DROPPED, LETTER, NUMBER, WS};
use crate::error::{Error, Result};
use crate::pretokenize::classes::clip_classes;
use crate::pretokenize::PieceSink;

/// The special tokens CLIP's pattern names, in its order.
const SPECIALS: [&[u8]; 3] = [
    b"<|startoftext|>",
    "<|\u{17f}tartoftext|>".as_bytes(),
    b"<|endoftext|>",
];

/// Gives each piece of `text` to `sink`, in order.
#[inline(always)]
pub fn send_clip_pieces<'t>(text: &'t str, sink: &mut impl PieceSink<'t>) -> Result<()> {
    let scan = Scan {
        c: clip_classes(),
        b: text.as_bytes(),
    };
    let mut p = 0;
    while p < scan.b.len() {
        let (end, next) = scan.clip(p);
        // Every branch moves past at least the character at `p`, by whole characters.
        match text.get(p..end) {
            // (`next` is checked as the next `p`.)
            Some(piece) if next > p => {
                if end > p {
                    sink.piece_at(piece, p);
                }
            }
            _ => {
                return Err(Error::invalid(format!(
                    "internal error: CLIP pre-tokenizer stopped at byte {p} (end {end})"
                )))
            }
        }
        p = next;
    }
    Ok(())
}

/// `[^\s\p{L}\p{N}\u0345]`.
#[inline(always)]
fn is_clip_other(f: u8) -> bool {
    f & (WS | LETTER | NUMBER | CLIP_DROPPED) == 0
}

/// Matched by no branch: `\s` and U+0345.
#[inline(always)]
fn is_dropped(f: u8) -> bool {
    f & (WS | CLIP_DROPPED) != 0
}

/// The length of `'s`, `'ſ`, `'t`, `'re`, `'ve`, `'m`, `'ll` or `'d` at `b[i]` (a `'`),
/// 0 if none. Case matters: CLIP lower-cases its text first, and its IGNORECASE is written
/// out in the pattern (the `ſ`).
#[inline(always)]
fn clip_contraction(b: &[u8], i: usize) -> usize {
    match b.get(i + 1..) {
        Some([b's' | b't' | b'm' | b'd', ..]) => 2,
        Some([0xc5, 0xbf, ..]) => 3,
        Some([b'r' | b'v', b'e', ..] | [b'l', b'l', ..]) => 3,
        _ => 0,
    }
}

/// What starts at a position: a piece ending at the given byte, or a run of dropped
/// characters ending there.
enum Found {
    Piece(usize),
    Dropped(usize),
}

impl Scan<'_> {
    /// The end of the piece that starts at `p` (`p` itself when the characters there are
    /// dropped), and where the next one may start: after the dropped run, or after the one
    /// space that most often follows a piece (a step of its own cost a fifth of the time).
    #[inline(always)]
    pub(super) fn clip(&self, p: usize) -> (usize, usize) {
        match self.clip_match(p) {
            Found::Dropped(next) => (p, next),
            Found::Piece(end) if self.b.get(end) == Some(&b' ') => (end, end + 1),
            Found::Piece(end) => (end, end),
        }
    }

    /// The match at `p`, in the pattern's order of branches.
    #[inline(always)]
    fn clip_match(&self, p: usize) -> Found {
        let Some(&byte) = self.b.get(p) else {
            return Found::Dropped(p);
        };
        if byte == b'<' {
            if let Some(special) = SPECIALS.iter().find(|s| self.b[p..].starts_with(s)) {
                return Found::Piece(p + special.len());
            }
        }
        if byte == b'\'' {
            let k = clip_contraction(self.b, p);
            if k > 0 {
                return Found::Piece(p + k);
            }
        }
        let Some((f, n)) = self.at(p) else {
            return Found::Dropped(p);
        };
        if f & LETTER != 0 {
            return Found::Piece(self.letters(p));
        }
        if f & NUMBER != 0 {
            return Found::Piece(p + n);
        }
        if is_dropped(f) {
            return Found::Dropped(self.run(p + n, is_dropped));
        }
        Found::Piece(self.run(p, is_clip_other))
    }
}
