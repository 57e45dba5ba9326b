//! Stage 1 — normalize: Unicode normalization form and lower-casing, applied to the text
//! before pre-tokenization, identically when training and when encoding.

use std::borrow::Cow;

use unicode_normalization::{is_nfc_quick, is_nfd_quick, is_nfkc_quick, is_nfkd_quick};
use unicode_normalization::{IsNormalized, UnicodeNormalization};

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Nfc,
    Nfd,
    Nfkc,
    Nfkd,
}

impl Form {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "nfc" => Ok(Form::Nfc),
            "nfd" => Ok(Form::Nfd),
            "nfkc" => Ok(Form::Nfkc),
            "nfkd" => Ok(Form::Nfkd),
            other => Err(Error::invalid(format!(
                "unknown normalization {other:?}: use nfc, nfd, nfkc or nfkd"
            ))),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Normalizer {
    pub form: Option<Form>,
    pub lowercase: bool,
}

impl Normalizer {
    pub fn is_identity(&self) -> bool {
        self.form.is_none() && !self.lowercase
    }

    /// Borrows the text unchanged when it is already normal (the common case), so the
    /// identity normalizer costs nothing.
    pub fn normalize<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        if let Some(form) = self.form {
            let quick = match form {
                Form::Nfc => is_nfc_quick(text.chars()),
                Form::Nfd => is_nfd_quick(text.chars()),
                Form::Nfkc => is_nfkc_quick(text.chars()),
                Form::Nfkd => is_nfkd_quick(text.chars()),
            };
            if quick != IsNormalized::Yes {
                out = Cow::Owned(match form {
                    Form::Nfc => text.nfc().collect(),
                    Form::Nfd => text.nfd().collect(),
                    Form::Nfkc => text.nfkc().collect(),
                    Form::Nfkd => text.nfkd().collect(),
                });
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
        };
        // U+1100 U+1161 (conjoining jamo) compose to U+AC00.
        assert_eq!(n.normalize("\u{1100}\u{1161}"), "\u{AC00}");
        let d = Normalizer {
            form: Some(Form::Nfd),
            lowercase: false,
        };
        assert_eq!(d.normalize("\u{AC00}"), "\u{1100}\u{1161}");
    }

    #[test]
    fn lowercase() {
        let n = Normalizer {
            form: None,
            lowercase: true,
        };
        assert_eq!(n.normalize("ÀBc"), "àbc");
        assert!(matches!(n.normalize("abc"), Cow::Borrowed(_)));
    }
}
