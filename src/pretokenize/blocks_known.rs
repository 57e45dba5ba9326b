//! What a block's non-ASCII bytes are: the letters of the scripts blocks take (two-byte
//! Latin and Cyrillic letters, Hangul syllables, CJK ideographs, kana) and general, CJK and
//! full-width punctuation, and how far from the block's start they reach (`known_bytes`).
//! Each helper gets the block as `in_range(lo, hi)`, a bit a byte, so that the SSE2,
//! AVX-512BW and NEON classifications share it.

/// The letters among a block's non-ASCII bytes and how far its classes reach.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Known {
    /// Bytes of whole letters that blocks take (`known_bytes`).
    pub letters: u64,
    /// o200k (`CASED`) only: those of them that are lower-case letters, or caseless.
    pub lower: u64,
    /// o200k only: those of them that are in both of its sets (Hangul syllables, CJK
    /// ideographs, kana).
    pub caseless: u64,
    /// The first bytes of the whole three-byte punctuation characters that blocks take
    /// (`punctuation`), which are `others`.
    pub long_others: u64,
    /// How many bytes from the first the block covers (64: all).
    pub len: u32,
}

/// How much of a block its classes cover, from the bit mask of its non-ASCII bytes (`high`)
/// and a way to ask which bytes are in a range (`in_range(lo, hi)`, a bit a byte): the
/// bytes of whole letters of the scripts below, and the length of the prefix of ASCII,
/// those and the punctuation below. Both patterns take Hangul syllables, CJK ideographs
/// (`han_ideographs`), kana (`kana_letters`) and three-byte punctuation (`punctuation`).
/// cl100k (not `CASED`), which does not tell upper from lower case, takes the two-byte
/// Latin and Cyrillic letters (`two_byte_letters`); o200k only the ones whose case one
/// compare per range gives (`cased_letters`), and its syllables, ideographs and kana are
/// `caseless`. `None` when that prefix is under 32 bytes: text that dense in other
/// characters is left to the byte splitter whole.
#[inline(always)]
pub(super) fn known_bytes<const CASED: bool>(
    high: u64,
    in_range: impl Fn(u8, u8) -> u64,
) -> Option<Known> {
    if high == 0 {
        return Some(Known {
            len: 64,
            ..Known::default()
        });
    }
    // A lead byte of another character among the first 32 refuses the block before the
    // letters' other masks are made (text in other scripts meets this at every block);
    // Korean text asks for the other leads only when some other lead is there. Hangul
    // syllables, CJK ideographs and kana are `Lo` or `Lm`: letters, and for o200k in both of
    // its sets of word letters (read as small letters, `caseless`).
    let mut known = Known::default();
    let three = in_range(0xEA, 0xED);
    let mut caseless = 0;
    if three != 0 {
        caseless = hangul_syllables(three, &in_range);
    }
    let mut others = in_range(0xC0, 0xFF) & !three;
    let mut punctuation_bytes = 0;
    if others != 0 {
        let wide = in_range(0xE2, 0xE9) | in_range(0xEF, 0xEF);
        if wide != 0 {
            let han = wide & in_range(0xE4, 0xE9);
            if han != 0 {
                caseless |= han_ideographs(han, &in_range);
            }
            let rest = wide & !han;
            let second = |lo, hi| in_range(lo, hi) >> 1;
            // Kana: `E3` then `81` to `83`.
            let kana = rest & in_range(0xE3, 0xE3) & second(0x81, 0x83);
            if kana != 0 {
                caseless |= kana_letters(kana, &in_range);
            }
            // Punctuation has `80` (or `BC` after `EF`) for its second byte, or is `・`
            // among the kana: other characters among the first 32 bytes (`①`, `→`) refuse
            // the block here. Kana that are not letters (sound marks, `゠`, unassigned)
            // are in no mask: like any other character, they end the known bytes
            // (`known.len`, below).
            if (rest & !kana & !(second(0x80, 0x80) | second(0xBC, 0xBC))) as u32 != 0 {
                return None;
            }
            let leads = punctuation(rest, &in_range);
            known.long_others = leads;
            punctuation_bytes = leads | leads << 1 | leads << 2;
            others &= !wide;
        }
    }
    if others != 0 {
        let two = if CASED {
            in_range(0xC3, 0xC3) | in_range(0xD0, 0xD1)
        } else {
            in_range(0xC3, 0xCA) | in_range(0xD0, 0xD3)
        };
        if (others & !two) as u32 != 0 {
            return None;
        }
        if CASED {
            (known.letters, known.lower) = cased_letters(&in_range);
        } else {
            known.letters = two_byte_letters(two, &in_range);
        }
    }
    known.letters |= caseless;
    if CASED {
        known.lower |= caseless;
        known.caseless = caseless;
    }
    let other = high & !known.letters & !punctuation_bytes;
    known.len = other.trailing_zeros();
    (other as u32 == 0).then_some(known)
}

/// o200k's two-byte letters in a block and the lower-case ones among them: Latin-1's
/// capitals (U+00C0 to U+00DE, `C3 80` to `C3 9E`) and small letters (U+00DF to U+00FF)
/// but `×` and `÷`, and the Cyrillic capitals U+0400 to U+042F (`D0 80` to `D0 AF`) and
/// small letters U+0430 to U+045F (`D0 B0` to `D1 9F`). Each is `Lu` or `Ll`, in one of
/// o200k's two sets of word letters and not the other.
#[inline(always)]
fn cased_letters(in_range: impl Fn(u8, u8) -> u64) -> (u64, u64) {
    // Bit i: byte i + 1 is in the range.
    let second = |lo, hi| in_range(lo, hi) >> 1;
    let whole = u64::MAX >> 1;
    let c3 = in_range(0xC3, 0xC3) & whole & !(second(0x97, 0x97) | second(0xB7, 0xB7));
    let d0 = in_range(0xD0, 0xD0) & whole;
    let d1 = in_range(0xD1, 0xD1) & whole & second(0x80, 0x9F);
    let lower = c3 & second(0x9F, 0xBF) | d0 & second(0xB0, 0xBF) | d1;
    let letters = c3 | d0 | d1;
    (letters | letters << 1, lower | lower << 1)
}

/// The bytes of the whole two-byte letters in a block, from `lead`, its bytes `C3` to `CA`
/// and `D0` to `D3`, all of them `\p{L}`: Latin letters with diacritics, IPA and modifier
/// letters (U+00C0 to U+02BF: Latin-1, Extended-A and -B, IPA Extensions) but `×` and `÷`
/// (`C3 97`, `C3 B7`), and Cyrillic (U+0400 to U+04FF) but `҂` and the combining marks
/// U+0482 to U+0489 (`D2 82` to `D2 89`). The text is valid UTF-8, so such a byte is
/// followed by a continuation byte unless the block ends first.
#[inline(always)]
fn two_byte_letters(lead: u64, in_range: impl Fn(u8, u8) -> u64) -> u64 {
    // Bit i: byte i + 1 is in the range.
    let second = |lo, hi| in_range(lo, hi) >> 1;
    let mut letters = lead & (u64::MAX >> 1);
    letters &= !(in_range(0xC3, 0xC3) & (second(0x97, 0x97) | second(0xB7, 0xB7)));
    letters &= !(in_range(0xD2, 0xD2) & second(0x82, 0x89));
    letters | letters << 1
}

/// The bytes of the whole Hangul syllables in a block (U+AC00 to U+D7A3, `EA B0 80` to
/// `ED 9E A3` in UTF-8, all of them `\p{L}`), from `lead`, its bytes `EA` to `ED`. The text
/// is valid UTF-8, so such a byte is followed by two continuation bytes unless the block
/// ends first; the range's two ends are checked on the second and third bytes (`EA 80` to
/// `EA AF` are other scripts' letters, digits and marks; from `ED 9E A4` on, Jamo and
/// unassigned code points).
#[inline(always)]
fn hangul_syllables(lead: u64, in_range: impl Fn(u8, u8) -> u64) -> u64 {
    let ea = in_range(0xEA, 0xEA);
    let ed = in_range(0xED, 0xED);
    // Bit i: byte i + 1 (`second`) or i + 2 (`third`) is in the range.
    let second = |lo, hi| in_range(lo, hi) >> 1;
    let third = |lo, hi| in_range(lo, hi) >> 2;
    // Leads whose three bytes are all in the block.
    let mut syllables = lead & (u64::MAX >> 2);
    syllables &= !(ea & second(0x80, 0xAF));
    syllables &= !(ed & (second(0x9F, 0xBF) | second(0x9E, 0x9E) & third(0xA4, 0xBF)));
    syllables | syllables << 1 | syllables << 2
}

/// The bytes of the whole CJK Unified Ideographs in a block (U+4E00 to U+9FFF, `E4 B8 80`
/// to `E9 BF BF` in UTF-8, all of them `\p{L}`), from `lead`, its bytes `E4` to `E9`. The
/// range's start is checked on the second byte (`E4 80` to `E4 B7` are Extension A's
/// ideographs and the Yijing hexagram symbols, which are not letters); every code point
/// from `E5 80 80` to `E9 BF BF` is in the range.
#[inline(always)]
fn han_ideographs(lead: u64, in_range: impl Fn(u8, u8) -> u64) -> u64 {
    // Bit i: byte i + 1 is in the range.
    let second = |lo, hi| in_range(lo, hi) >> 1;
    let mut han = lead & (u64::MAX >> 2);
    han &= !(in_range(0xE4, 0xE4) & second(0x80, 0xB7));
    han | han << 1 | han << 2
}

/// The bytes of the whole kana letters in a block, from `lead`, its bytes `E3` followed by
/// `81` to `83` (U+3040 to U+30FF): Hiragana U+3041 to U+3096 and U+309D to U+309F, and
/// Katakana U+30A1 to U+30FA and U+30FC to U+30FF, all of them `Lo` or `Lm` (letters, and
/// for o200k in both of its sets). Left out: U+3040 and U+3097 to U+3098 (unassigned), the
/// sound marks U+3099 to U+309C (`Mn`, `Sk`), `゠` (U+30A0) and `・` (U+30FB, which
/// `punctuation` takes).
#[inline(always)]
fn kana_letters(lead: u64, in_range: impl Fn(u8, u8) -> u64) -> u64 {
    // Bit i: byte i + 1 (`second`) or i + 2 (`third`) is in the range.
    let second = |lo, hi| in_range(lo, hi) >> 1;
    let third = |lo, hi| in_range(lo, hi) >> 2;
    let mut kana = lead & (u64::MAX >> 2);
    kana &= !(second(0x81, 0x81) & third(0x80, 0x80));
    kana &= !(second(0x82, 0x82) & (third(0x97, 0x9C) | third(0xA0, 0xA0)));
    kana &= !(second(0x83, 0x83) & third(0xBB, 0xBB));
    kana | kana << 1 | kana << 2
}

/// The first bytes of the whole three-byte punctuation characters in a block, from `lead`,
/// its bytes `E2`, `E3` and `EF`: general punctuation U+2010 to U+2027 (dashes, quotation
/// marks, `†`, `•`, `…`; `E2 80 90` to `E2 80 A7`), CJK punctuation U+3001 to U+3004 and
/// U+3008 to U+301F (`、。〃〄`, the brackets `「」『』《》【】` and their kin, `〜`;
/// `E3 80 81` to `E3 80 84`, `E3 80 88` to `E3 80 9F`), the Katakana middle dot `・`
/// (U+30FB, `E3 83 BB`) and full-width U+FF01 to U+FF0F and U+FF1A to U+FF20
/// (`！（），：；？` and the rest of the full-width ASCII punctuation before the letters;
/// `EF BC 81` to `EF BC 8F`, `EF BC 9A` to `EF BC A0`). None of them is a
/// letter, a number or whitespace (U+2028 and U+2029, the line and paragraph separators,
/// are whitespace and left out): each is an `others` character of three bytes, which
/// `long_others` marks for the rule that one such character may lead a word
/// (`[^\r\n\p{L}\p{N}]?`).
#[inline(always)]
fn punctuation(lead: u64, in_range: impl Fn(u8, u8) -> u64) -> u64 {
    if lead == 0 {
        return 0;
    }
    // Bit i: byte i + 1 (`second`) or i + 2 (`third`) is in the range.
    let second = |lo, hi| in_range(lo, hi) >> 1;
    let third = |lo, hi| in_range(lo, hi) >> 2;
    let e2 = in_range(0xE2, 0xE2) & second(0x80, 0x80) & third(0x90, 0xA7);
    let e3 = in_range(0xE3, 0xE3)
        & (second(0x80, 0x80) & (third(0x81, 0x84) | third(0x88, 0x9F))
            | second(0x83, 0x83) & third(0xBB, 0xBB));
    let ef = in_range(0xEF, 0xEF) & second(0xBC, 0xBC) & (third(0x81, 0x8F) | third(0x9A, 0xA0));
    lead & (e2 | e3 | ef) & (u64::MAX >> 2)
}
