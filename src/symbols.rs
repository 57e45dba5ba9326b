//! Stage 3 — initial symbols: what a pre-tokenized word is made of before any merge.
//! Classic mode uses characters; byte-level mode uses the word's UTF-8 bytes, each shown as
//! one printable character through the GPT-2/CLIP bytes-to-unicode table. An end-of-word
//! marker is either its own last symbol ("separate"), a suffix of the last symbol
//! ("attached", as subword-nmt 0.2 and CLIP do), or absent.

use std::sync::OnceLock;

use crate::error::{Error, Result};

/// What a model's initial symbols are (`kind` in the Python API and the CLI).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Characters; words split on whitespace.
    Classic,
    /// UTF-8 bytes, each shown as one character of the bytes-to-unicode table.
    Byte,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndOfWord {
    Separate,
    Attached,
    None,
}

impl EndOfWord {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "separate" => Ok(EndOfWord::Separate),
            "attached" => Ok(EndOfWord::Attached),
            "none" => Ok(EndOfWord::None),
            other => Err(Error::invalid(format!(
                "unknown end_of_word {other:?}: use separate, attached or none"
            ))),
        }
    }
}

#[derive(Debug, Clone)]
pub struct SymbolRules {
    pub kind: Kind,
    pub end_of_word: EndOfWord,
    pub end_of_word_symbol: String,
}

impl SymbolRules {
    /// The initial symbols of `word`, as strings, appended to `out`.
    pub fn split(&self, word: &str, out: &mut Vec<String>) {
        let start = out.len();
        match self.kind {
            Kind::Classic => out.extend(word.chars().map(String::from)),
            Kind::Byte => {
                let table = byte_to_unicode();
                out.extend(word.bytes().map(|b| String::from(table[b as usize])));
            }
        }
        match self.end_of_word {
            EndOfWord::Separate => out.push(self.end_of_word_symbol.clone()),
            EndOfWord::Attached if out.len() > start => {
                if let Some(last) = out.last_mut() {
                    last.push_str(&self.end_of_word_symbol);
                }
            }
            _ => {}
        }
    }
}

/// The GPT-2 table: printable Latin-1 bytes keep their code point; the other bytes map, in
/// byte order, to U+0100 onwards, so every byte is one visible, non-space character.
pub fn byte_to_unicode() -> &'static [char; 256] {
    static TABLE: OnceLock<[char; 256]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let keeps = |b: u32| (0x21..=0x7e).contains(&b) || (0xa1..=0xac).contains(&b) || b >= 0xae;
        let mut table = ['\0'; 256];
        let mut next = 256u32;
        for b in 0..256u32 {
            let code = if keeps(b) {
                b
            } else {
                next += 1;
                next - 1
            };
            table[b as usize] = char::from_u32(code).unwrap_or('\u{FFFD}');
        }
        table
    })
}

/// The inverse table: character → byte, for decoding byte-level tokens.
pub fn unicode_to_byte(c: char) -> Option<u8> {
    // Every character of the table is below U+0144: one array indexed by code point.
    static INVERSE: OnceLock<[u16; 0x144]> = OnceLock::new();
    let inverse = INVERSE.get_or_init(|| {
        let mut inverse = [u16::MAX; 0x144];
        for (b, &c) in byte_to_unicode().iter().enumerate() {
            inverse[c as usize] = b as u16;
        }
        inverse
    });
    match inverse.get(c as usize) {
        Some(&b) if b != u16::MAX => Some(b as u8),
        _ => None,
    }
}

/// The bytes a byte-level token stands for, or None if it has a character outside the table.
pub fn byte_level_bytes(token: &str) -> Option<Vec<u8>> {
    token.chars().map(unicode_to_byte).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_table_is_a_bijection() {
        let table = byte_to_unicode();
        assert_eq!(table[b'!' as usize], '!');
        assert_eq!(table[b' ' as usize], 'Ġ');
        assert_eq!(table[b'\n' as usize], 'Ċ');
        for b in 0..=255u8 {
            assert_eq!(unicode_to_byte(table[b as usize]), Some(b));
        }
        assert_eq!(unicode_to_byte('€'), None);
    }

    #[test]
    fn end_of_word_modes() {
        let mut out = Vec::new();
        let rules = |eow| SymbolRules {
            kind: Kind::Classic,
            end_of_word: eow,
            end_of_word_symbol: "</w>".into(),
        };
        rules(EndOfWord::Separate).split("low", &mut out);
        assert_eq!(out, ["l", "o", "w", "</w>"]);
        out.clear();
        rules(EndOfWord::Attached).split("low", &mut out);
        assert_eq!(out, ["l", "o", "w</w>"]);
        out.clear();
        rules(EndOfWord::None).split("한국", &mut out);
        assert_eq!(out, ["한", "국"]);
    }
}
