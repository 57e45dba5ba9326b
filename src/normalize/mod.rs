//! Stage 1 — normalize: Unicode normalization form and lower-casing, applied to the text
//! before pre-tokenization, identically when training and when encoding.
//!
//! `Form::Jamo` is for Korean: NFC, then every precomposed Hangul syllable (U+AC00–U+D7A3)
//! becomes its conjoining jamo (leading consonant, vowel, optional trailing consonant),
//! computed arithmetically as Unicode §3.12 defines it. Nothing else is decomposed (`é`
//! stays one character, unlike NFD), and compatibility jamo such as `ㅋ` are untouched.
//! BPE then learns merges below the syllable. Decoding undoes it with `compose_hangul`:
//! after NFC no leading+vowel (or syllable+trailing) pair is left uncomposed, so composing
//! every such pair of the decoded text gives back exactly the NFC text.

pub mod sentencepiece;

use std::borrow::Cow;
use std::sync::Arc;

use unicode_normalization::{is_nfc_quick, is_nfd_quick, is_nfkc_quick, is_nfkd_quick};
use unicode_normalization::{IsNormalized, UnicodeNormalization};

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Nfc,
    Nfd,
    Nfkc,
    Nfkd,
    /// NFC, then Hangul syllables → conjoining jamo (see the module notes).
    Jamo,
}

impl Form {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "nfc" => Ok(Form::Nfc),
            "nfd" => Ok(Form::Nfd),
            "nfkc" => Ok(Form::Nfkc),
            "nfkd" => Ok(Form::Nfkd),
            "jamo" => Ok(Form::Jamo),
            other => Err(Error::invalid(format!(
                "unknown normalization {other:?}: use nfc, nfd, nfkc, nfkd or jamo"
            ))),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Normalizer {
    pub form: Option<Form>,
    pub lowercase: bool,
    /// SentencePiece models normalize their own way (and nothing else applies).
    pub sentencepiece: Option<Arc<sentencepiece::SentencePieceNormalizer>>,
}

impl Normalizer {
    pub fn is_identity(&self) -> bool {
        self.form.is_none() && !self.lowercase && self.sentencepiece.is_none()
    }

    /// Borrows the text unchanged when it is already normal (the common case), so the
    /// identity normalizer costs nothing: inlined, it is three tests per text of a batch.
    #[inline]
    pub fn normalize<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.is_identity() {
            return Cow::Borrowed(text);
        }
        self.normalize_any(text)
    }

    fn normalize_any<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if let Some(sentencepiece) = &self.sentencepiece {
            return Cow::Owned(sentencepiece.normalize(text));
        }
        let mut out = Cow::Borrowed(text);
        if let Some(form) = self.form {
            let quick = match form {
                Form::Nfc | Form::Jamo => is_nfc_quick(text.chars()),
                Form::Nfd => is_nfd_quick(text.chars()),
                Form::Nfkc => is_nfkc_quick(text.chars()),
                Form::Nfkd => is_nfkd_quick(text.chars()),
            };
            if quick != IsNormalized::Yes {
                out = Cow::Owned(match form {
                    Form::Nfc | Form::Jamo => text.nfc().collect(),
                    Form::Nfd => text.nfd().collect(),
                    Form::Nfkc => text.nfkc().collect(),
                    Form::Nfkd => text.nfkd().collect(),
                });
            }
            if form == Form::Jamo {
                if let Cow::Owned(split) = decompose_hangul(&out) {
                    out = Cow::Owned(split);
                }
            }
        }
        if self.lowercase && out.chars().any(|c| c.is_uppercase() || !c.is_ascii()) {
            let lowered = out.to_lowercase();
            if lowered != *out {
                out = Cow::Owned(lowered);
            }
        }
        out
    }
}

// Hangul syllable arithmetic (Unicode §3.12): a syllable is S_BASE + (L·V_COUNT + V)·T_COUNT
// + T, where T = 0 means no trailing consonant.
const S_BASE: u32 = 0xAC00;
const L_BASE: u32 = 0x1100;
const V_BASE: u32 = 0x1161;
const T_BASE: u32 = 0x11A7;
const L_COUNT: u32 = 19;
const V_COUNT: u32 = 21;
const T_COUNT: u32 = 28;
const S_COUNT: u32 = L_COUNT * V_COUNT * T_COUNT;

fn syllable_index(c: char) -> Option<u32> {
    let s = (c as u32).wrapping_sub(S_BASE);
    (s < S_COUNT).then_some(s)
}

fn is_syllable(c: char) -> bool {
    syllable_index(c).is_some()
}

/// Every Hangul syllable of `text` as conjoining jamo; other characters unchanged.
/// Borrows when there is no syllable.
pub fn decompose_hangul(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_syllable) {
        return Cow::Borrowed(text);
    }
    // A syllable is 3 bytes; its 2 or 3 jamo are 3 bytes each.
    let mut out = String::with_capacity(text.len() * 3);
    for c in text.chars() {
        let Some(s) = syllable_index(c) else {
            out.push(c);
            continue;
        };
        let (l, v, t) = (
            s / (V_COUNT * T_COUNT),
            (s / T_COUNT) % V_COUNT,
            s % T_COUNT,
        );
        for (base, index, present) in [(L_BASE, l, true), (V_BASE, v, true), (T_BASE, t, t > 0)] {
            // In range by construction: the syllable block maps onto the modern jamo.
            if let (true, Some(jamo)) = (present, char::from_u32(base + index)) {
                out.push(jamo);
            }
        }
    }
    Cow::Owned(out)
}

/// Composes conjoining jamo into syllables: leading consonant + vowel → LV syllable, LV
/// syllable + trailing consonant → LVT syllable. Only the modern jamo that syllables are
/// made of compose; old jamo and compatibility jamo stay as they are. Borrows when nothing
/// composes.
pub fn compose_hangul(text: &str) -> Cow<'_, str> {
    let leading = |c: char| (c as u32).wrapping_sub(L_BASE) < L_COUNT;
    let vowel = |c: char| (c as u32).wrapping_sub(V_BASE) < V_COUNT;
    let trailing = |c: char| (1..T_COUNT).contains(&(c as u32).wrapping_sub(T_BASE));
    if !text.chars().any(|c| vowel(c) || trailing(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut last: Option<char> = None;
    for c in text.chars() {
        if let Some(prev) = last {
            let combined = if leading(prev) && vowel(c) {
                let (l, v) = (prev as u32 - L_BASE, c as u32 - V_BASE);
                char::from_u32(S_BASE + (l * V_COUNT + v) * T_COUNT)
            } else if trailing(c) && syllable_index(prev).is_some_and(|s| s % T_COUNT == 0) {
                char::from_u32(prev as u32 + (c as u32 - T_BASE))
            } else {
                None
            };
            if let Some(syllable) = combined {
                last = Some(syllable);
                changed = true;
                continue;
            }
            out.push(prev);
        }
        last = Some(c);
    }
    if let Some(prev) = last {
        out.push(prev);
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_borrows() {
        let n = Normalizer::default();
        assert!(matches!(n.normalize("abc"), Cow::Borrowed(_)));
    }

    #[test]
    fn nfc_composes_hangul_jamo() {
        let n = Normalizer {
            form: Some(Form::Nfc),
            lowercase: false,
            ..Normalizer::default()
        };
        // U+1100 U+1161 (conjoining jamo) compose to U+AC00.
        assert_eq!(n.normalize("\u{1100}\u{1161}"), "\u{AC00}");
        let d = Normalizer {
            form: Some(Form::Nfd),
            lowercase: false,
            ..Normalizer::default()
        };
        assert_eq!(d.normalize("\u{AC00}"), "\u{1100}\u{1161}");
    }

    #[test]
    fn lowercase() {
        let n = Normalizer {
            form: None,
            lowercase: true,
            ..Normalizer::default()
        };
        assert_eq!(n.normalize("ÀBc"), "àbc");
        assert!(matches!(n.normalize("abc"), Cow::Borrowed(_)));
    }

    fn jamo() -> Normalizer {
        Normalizer {
            form: Some(Form::Jamo),
            lowercase: false,
            ..Normalizer::default()
        }
    }

    #[test]
    fn jamo_decomposes_only_hangul_syllables() {
        // 한 = ᄒ ᅡ ᆫ (with a trailing consonant), 가 = ᄀ ᅡ (without).
        assert_eq!(
            jamo().normalize("한가"),
            "\u{1112}\u{1161}\u{11AB}\u{1100}\u{1161}"
        );
        // é (precomposed) is not decomposed, compatibility jamo are kept.
        assert_eq!(jamo().normalize("é ㅋㅋ a"), "é ㅋㅋ a");
        assert!(matches!(jamo().normalize("plain"), Cow::Borrowed(_)));
        // NFC first: a decomposed e + U+0301 is composed; first and last syllables.
        assert_eq!(jamo().normalize("e\u{301}"), "é");
        assert_eq!(jamo().normalize("\u{AC00}"), "\u{1100}\u{1161}");
        assert_eq!(jamo().normalize("\u{D7A3}"), "\u{1112}\u{1175}\u{11C2}");
    }

    #[test]
    fn jamo_is_idempotent_and_composes_back() {
        let text = "대한민국은 민주공화국이다. ㅋㅋ café 東京 \u{1100}\u{1161}";
        let once = jamo().normalize(text).into_owned();
        assert_eq!(jamo().normalize(&once), once);
        let nfc: String = text.nfc().collect();
        assert_eq!(compose_hangul(&once), nfc);
    }

    #[test]
    fn compose_leaves_what_does_not_compose() {
        // A vowel with no leading consonant, a trailing consonant after an LVT syllable,
        // an old leading consonant (U+1113) and U+11A7 (not a trailing consonant).
        for text in [
            "\u{1161}",
            "한\u{11AB}",
            "\u{1113}\u{1161}",
            "가\u{11A7}",
            "ㄱㅏ",
        ] {
            assert_eq!(compose_hangul(text), text, "{text:?}");
        }
        assert_eq!(compose_hangul("\u{1100}\u{1161}\u{11A8}"), "각");
        assert!(matches!(compose_hangul("abc"), Cow::Borrowed(_)));
    }

    #[test]
    fn every_syllable_round_trips() {
        for code in S_BASE..S_BASE + S_COUNT {
            let Some(c) = char::from_u32(code) else {
                continue;
            };
            let text = c.to_string();
            let split = decompose_hangul(&text);
            assert_eq!(compose_hangul(&split), text);
            // The arithmetic agrees with Unicode's canonical decomposition.
            assert_eq!(split, text.nfd().collect::<String>());
        }
    }
}
