//! The fast splitters against fancy-regex on hand-picked texts.

use super::super::classes::ranges;
use super::super::{PreTokenizer, CLIP};
use super::*;
use fancy_regex::Regex;

fn fast(p: FastPattern, text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    p.for_each_piece(text, |s| out.push(s)).unwrap();
    out
}

/// Each pattern's regex, compiled once for all the tests.
fn compiled(p: FastPattern) -> &'static Regex {
    static ALL: std::sync::OnceLock<Vec<Regex>> = std::sync::OnceLock::new();
    let all = ALL.get_or_init(|| {
        FastPattern::ALL
            .iter()
            .map(|p| Regex::new(p.regex()).unwrap())
            .collect()
    });
    &all[FastPattern::ALL.iter().position(|&q| q == p).unwrap()]
}

fn slow(p: FastPattern, text: &str) -> Vec<String> {
    compiled(p)
        .find_iter(text)
        .map(|m| m.unwrap().as_str().to_string())
        .collect()
}

fn check(text: &str) {
    for p in FastPattern::ALL {
        assert_eq!(fast(p, text), slow(p, text), "{} on {text:?}", p.name());
    }
}

#[test]
fn from_regex_picks_only_the_exact_strings() {
    for p in FastPattern::ALL {
        assert_eq!(FastPattern::from_regex(p.regex()), Some(p));
        assert!(Regex::new(p.regex()).is_ok());
    }
    assert_eq!(FastPattern::from_regex(&format!("{GPT2} ")), None);
    assert_eq!(FastPattern::from_regex(r"\w+"), None);
}

#[test]
fn known_splits() {
    let t = "Hello world! I'm HERE's 12345 \n\n  ok";
    assert_eq!(
        fast(FastPattern::Gpt2, t),
        ["Hello", " world", "!", " I", "'m", " HERE", "'s", " 12345", " \n\n ", " ok"]
    );
    assert_eq!(
        fast(FastPattern::Cl100k, t),
        [
            "Hello", " world", "!", " I", "'m", " HERE", "'s", " ", "123", "45", " \n\n", " ",
            " ok"
        ]
    );
    assert_eq!(
        fast(FastPattern::O200k, t),
        ["Hello", " world", "!", " I'm", " HERE's", " ", "123", "45", " \n\n", " ", " ok"]
    );
    // Llama 3 splits as cl100k except for a run with a line break at the end.
    assert_eq!(fast(FastPattern::Llama3, t), fast(FastPattern::Cl100k, t));
    assert_eq!(
        fast(FastPattern::Llama3, "abc  \n  "),
        ["abc", "  \n", "  "]
    );
    assert_eq!(fast(FastPattern::Cl100k, "abc  \n  "), ["abc", "  \n  "]);
}

#[test]
fn tricky_strings_match_the_regex() {
    let cases = [
        "",
        " ",
        "  ",
        "\n",
        "a",
        "'",
        "''",
        "'s",
        "'S",
        "'ſ",
        "x'ſ",
        "'ll'LL'lL'Ve're'RE'd'D'm'M't'T",
        "don't we'll they're I've she'd I'm it's",
        "DON'T WE'LL THEY'RE",
        "'sa 'lx 'l 'v 're'",
        "a\r\nb\r\n\r\n c \r\n",
        "a  \n  b   \t  \n",
        "   a    !   \n   ",
        "x  ",
        "x \t",
        "1 12 123 1234 12345 123456 1234567",
        " 1 ½Ⅻ٣",
        "e\u{301}\u{301} \u{301}a \u{301}\u{301}!",
        "\u{1c5}ungla \u{1c4}\u{1c5}\u{1c6} ʰʰa Aʰb AʰBc",
        "HELLOworld HelloWorld hello'S HELLO'S ÀÉÎõü",
        "a\u{a0}b \u{a0} c\u{2028}d\u{2029}\u{3000}e\u{85}f",
        "x\u{0}y \u{0}\u{0} \u{1f}z",
        "😀😀 a😀 😀b 👍🏽",
        "𐐀𐐨 𝐀𝐁 𝟏𝟐𝟑𝟒",
        "한국어 텍스트입니다. 大韓民國憲法 第1條",
        "!\n/ !!\n\n//x ;\r\n//y",
        "(hello) [world]\n\"quoted\"",
        "\r",
        "\r\r\n\n\r",
        " \r\n",
        "a \n",
        "'\n's\n",
        "abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        "ABCDEFGHIJklmnopqrstuvwxyzé ABCDEFGHIJKLMNOPé abcdefghijklmnop\u{301}x",
        "(abcdefghijkl'S) ABCDEFGHIJKLM'ſ abcdefgh' abcdefgh'll",
        "Ééééééééééééé ÉÉÉÉÉÉÉÉÉÉéééé aaaaaaaaaaaaaaaaaaaé",
    ];
    for t in cases {
        check(t);
    }
}

#[test]
fn swar_ranges_match_byte_tests() {
    for b in 0..=255u8 {
        let x = u64::from_le_bytes([b'a', b, 0xff, b'Z', b, b'0', b, 0x80]);
        let byte_is = |m: u64, k: usize| m >> (8 * k + 7) & 1 == 1;
        assert_eq!(
            byte_is(ascii_letters(x), 1),
            b.is_ascii_alphabetic(),
            "{b:#x}"
        );
        assert_eq!(
            byte_is(ascii_lowercase(x), 4),
            b.is_ascii_lowercase(),
            "{b:#x}"
        );
        assert_eq!(
            byte_is(ascii_uppercase(x), 6),
            b.is_ascii_uppercase(),
            "{b:#x}"
        );
        assert!(byte_is(ascii_letters(x), 0) && !byte_is(ascii_letters(x), 2));
        assert!(byte_is(ascii_uppercase(x), 3) && !byte_is(ascii_letters(x), 7));
    }
}

#[test]
fn every_character_alone_and_in_context_matches_the_regex() {
    // One character from each 64-code-point block (and each ASCII one), alone and
    // between a letter, a space and an apostrophe: every class transition the patterns
    // test, across all planes.
    let mut chars: Vec<char> = (0u32..128).filter_map(char::from_u32).collect();
    chars.extend((128u32..0x11_0000).step_by(61).filter_map(char::from_u32));
    let mut text = String::new();
    for c in chars {
        for ctx in ["a", " ", "'", "A", "1", "\n", "\u{301}"] {
            text.push(c);
            text.push_str(ctx);
            text.push(c);
            text.push(c);
        }
    }
    check(&text);
}

#[test]
fn contraction_letters_are_the_case_folds_regex_syntax_knows() {
    for letter in ['s', 't', 'r', 'e', 'v', 'm', 'l', 'd'] {
        let folds: Vec<char> = ranges(&format!("(?i:{letter})"))
            .into_iter()
            .flat_map(|(a, b)| a..=b)
            .collect();
        for c in folds {
            let mut buf = [0u8; 4];
            let s = c.encode_utf8(&mut buf).as_bytes();
            assert_eq!(
                contraction_letter(s, 0, true),
                Some((letter as u8, s.len())),
                "{c:?}"
            );
        }
        for c in ['\u{212a}', 'ß', 'İ', 'ı'] {
            let mut buf = [0u8; 4];
            let s = c.encode_utf8(&mut buf).as_bytes();
            assert_eq!(contraction_letter(s, 0, true), None);
        }
    }
}

#[test]
fn pieces_cover_the_text_without_panicking_on_any_byte_position() {
    let t = "a\u{301}ſ'ſ 𐐀\u{a0}\r\n한";
    for p in FastPattern::ALL {
        assert_eq!(fast(p, t).concat(), t);
        // Scanning from any byte, boundary or not, must not panic.
        let scan = Scan {
            c: classes(),
            b: t.as_bytes(),
        };
        for i in 0..=t.len() + 2 {
            let _ = (scan.gpt2(i), scan.cl100k(i), scan.o200k(i));
            let _ = scan.cl100k_rules(i, false);
        }
    }
    let clip = Scan {
        c: crate::pretokenize::classes::clip_classes(),
        b: t.as_bytes(),
    };
    for i in 0..=t.len() + 2 {
        let _ = clip.clip(i);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any text, with the characters where the patterns' branches meet made likely. In a
    /// debug build the splitting loop also asserts that each piece ends on a character
    /// boundary.
    #[test]
    fn any_text_splits_as_the_regex_does(
        chars in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::prelude::any::<char>(),
                proptest::sample::select(vec![' ', '\'', 's', 'S', '\n', '\r', 'a', 'Z', '1', '!', '\u{17f}', '\u{301}', '\u{345}', 'é', '한', '<', '|']),
            ],
            0..40,
        )
    ) {
        let text: String = chars.into_iter().collect();
        check(&text);
        static CLIP_REGEX: std::sync::OnceLock<PreTokenizer> = std::sync::OnceLock::new();
        let regex = CLIP_REGEX.get_or_init(|| PreTokenizer::regex_only(CLIP).unwrap());
        let clip = PreTokenizer::Clip.pieces(&text).unwrap();
        proptest::prop_assert_eq!(clip, regex.pieces(&text).unwrap());
    }
}

/// Mostly ASCII texts of `parts` pieces where the block rules meet: runs of each class,
/// contractions, cased words, digit runs, slashes after line breaks, every kind of
/// whitespace next to line breaks, and now and then a non-ASCII character.
fn ascii_texts(parts: std::ops::Range<usize>) -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::strategy::Strategy;
    proptest::collection::vec(
        proptest::prop_oneof![
            16 => proptest::sample::select(vec![
                " ", "  ", "the", "Word", "'s", "'T", "'ll", "'Re", "'ve", "'d", "'m", "'x",
                "'", "''", "don", "I", "12", "12345", "7", "(", ".", ",", "\"", "--", "!?",
                "\n", "\n\n", "\r\n", "\t", "\t\t", "\u{b}", "\u{c}", " \n", "\n ", "\n  ",
                " (", "x'", "a1b", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij", "0123456789012",
                "camelCase", "HTMLParser", "aB", "'s's", "/", "\n/", "*/\n/*", "//", " /",
                "'rE", "'lL", "'vE", "'S",
            ]),
            1 => proptest::sample::select(vec!["é", "한", "Ж", "\u{a0}", "\u{85}", "ſ", "·"]),
        ],
        parts,
    )
    .prop_map(|parts| parts.concat())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]

    /// Long texts, so that cl100k's, Llama 3's and o200k's 64-byte blocks (`blocks.rs`)
    /// split most of them. In a debug build each piece of a block is also checked against
    /// the byte-at-a-time splitter.
    #[test]
    fn long_ascii_texts_split_as_the_regex_does(text in ascii_texts(0..120)) {
        check(&text);
    }

    /// Short texts, as per-line calls and batches of lines have them: most of each is its
    /// last block, read as a block that spaces fill after it (`blocks::tail_starts`), with
    /// whatever ends it (whitespace, a line break, an apostrophe, digits, a non-ASCII
    /// character) at the text's end.
    #[test]
    fn short_texts_split_as_the_regex_does(text in ascii_texts(1..24)) {
        check(&text);
    }
}

/// Long texts of a script whose letters blocks take (`blocks.rs`; for o200k some of them):
/// its `words` (the letters at the ends of the ranges taken among them) mixed with ASCII
/// words, digits, punctuation and whitespace, and now and then one of `edges`, characters
/// just outside the ranges, other whitespace and punctuation, that end a block.
fn script_texts(
    words: &[&'static str],
    edges: &[&'static str],
) -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::strategy::Strategy;
    let common = [
        " ", "  ", "abc", "Word", "'s", "12", "12345", "(", ".", ",", "\"", "\n", "\n\n", "\r\n",
        "\t", " \n", "\n ", "x'", "--",
    ];
    let words: Vec<&str> = words.iter().chain(&common).copied().collect();
    proptest::collection::vec(
        proptest::prop_oneof![
            16 => proptest::sample::select(words),
            1 => proptest::sample::select(edges.to_vec()),
        ],
        0..120,
    )
    .prop_map(|parts| parts.concat())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Korean: Hangul syllables, with capitals before and after them (for o200k a syllable
    /// is in both sets of word letters). In a debug build each piece of a block is also
    /// checked against the byte-at-a-time splitter.
    #[test]
    fn long_korean_texts_split_as_the_regex_does(
        text in script_texts(
            &["한국어", "대한민국", "가", "힣", "의", "을", "\u{AC00}\u{D7A3}", "다.", "'한", "한'",
              "한1", "1한", "한A", "A한", "한A한", "한Ж", "한É", "ÀB한", "한'S", "한'Re", "Ж"],
            &["\u{ABFF}", "\u{ABF0}", "\u{A000}", "\u{D7A4}", "\u{D7B0}", "\u{D7FF}", "\u{3000}",
              "\u{A0}", "”", "·", "é", "😀", "\u{1100}", "\u{3131}"],
        )
    ) {
        check(&text);
    }

    /// Chinese: CJK Unified Ideographs (the range's ends among them) with the full-width
    /// and ideographic punctuation that Chinese text has between them (one such character
    /// leads the word after it, two do not, nor one after a space), capitals and Hangul
    /// next to them (for o200k an ideograph is in both sets of word letters).
    #[test]
    fn long_chinese_texts_split_as_the_regex_does(
        text in script_texts(
            &["中文", "的", "是", "一", "\u{4E00}\u{9FFF}", "\u{9FA5}", "规模的项目中", "。", "，",
              "、", "「", "」", "（", "）", "中1", "1中", "中A", "A中", "中A中", "中'S", "'中",
              "中한", "한中", "中Ж", "中é", "，中", " ，中", "\n，中", "\t，中", "(，中", "，(中", "，，中",
              "， 中", "，1", "，\n", "，'s", "」。", "【中】", "！？", "＠中", "〜中", "A，B", "“中”",
              "……", "——", "’s", "don’t", "a—b", " “A”"],
            &["\u{4DFF}", "\u{4DBF}", "\u{3400}", "\u{A000}", "\u{3000}", "\u{3041}",
              "\u{30FC}", "\u{FF21}", "\u{20000}", "\u{F900}", "\u{A0}", "·", "😀"],
        )
    ) {
        check(&text);
    }

    /// Japanese: Hiragana and Katakana (the ends of the ranges taken among them, the long
    /// vowel mark `ー`) with ideographs, `・` and the punctuation of Japanese text; kana's
    /// sound marks, `゠`, unassigned code points and Bopomofo end blocks (for o200k kana
    /// are in both sets of word letters).
    #[test]
    fn long_japanese_texts_split_as_the_regex_does(
        text in script_texts(
            &["ひらがな", "カタカナ", "データベース", "の", "は", "を", "です。", "ます、", "\u{3041}",
              "\u{3096}", "\u{309D}\u{309F}", "\u{30A1}", "\u{30FA}", "\u{30FC}\u{30FF}", "ー",
              "書き込み", "漢字かな", "・", "ファイル・システム", "・カナ", " ・カ", "・・カ", "「かな」",
              "（カナ）", "カナA", "Aカナ", "かな1", "1かな", "カナ'S", "'かな", "かな한", "かなé",
              "FIFO（先入れ先出し）", "〜かな", "かな…"],
            &["\u{3040}", "\u{3097}", "\u{3099}", "\u{309A}", "\u{309B}", "\u{309C}",
              "\u{30A0}", "\u{3100}", "\u{31F0}", "\u{FF66}", "\u{3000}", "\u{A0}", "😀"],
        )
    ) {
        check(&text);
    }

    /// Russian and other Cyrillic, and Latin with diacritics (`ſ` among them, which `(?i)`
    /// takes for `s` in a contraction), capitals after small letters for o200k.
    #[test]
    fn long_cyrillic_and_latin_texts_split_as_the_regex_does(
        text in script_texts(
            &["Москва", "привет", "Ёж", "ёлка", "\u{400}\u{4FF}", "Ҋ", "ӿ", "Ѣѣ", "ї", "'т", "д'",
              "café", "Ærø", "Straße", "МоскваПривет", "приветМИР", "ÉCOLE", "éÉè", "Ёж's", "ÀÞßÿ", "ÀÿĀžƀɏɐʿ", "łódź", "Ǆ", "ſ", "'ſ", "Ol'ſ", "é1", "1é"],
            &["×", "÷", "҂", "\u{483}", "\u{489}", "\u{500}", "\u{2C0}", "\u{BF}", "\u{A0}",
              "«", "»", "—", "ά", "\u{301}", "한", "😀", "\u{85}"],
        )
    ) {
        check(&text);
    }
}

/// A case the property test above found: o200k's contraction ends a word (`Word's`), and
/// the apostrophe after it leads the next word, in a block.
#[test]
fn a_contraction_after_a_contraction_in_a_block() {
    let text = format!(
        "{}--{}theWord's's{}a1b",
        " ".repeat(25),
        "ABCDEFGHIJ".repeat(3),
        "XYZabc".repeat(8)
    );
    assert!(text.len() > 64 + 30);
    check(&text);
    check(&text[20..]);
}

/// A case the Python property test found: o200k's contraction `(?i:'re)` takes `'rE`,
/// whose capital after a small letter would otherwise start a word, in a block in the
/// middle of a text and in a text's last block.
#[test]
fn a_capital_inside_a_contraction_in_a_block() {
    let text = format!(
        "{}wo'rEx and I'lL{}",
        "ab ".repeat(10),
        " text here".repeat(8)
    );
    assert!(text.len() > 64 + 40);
    check(&text);
    check("'s'rE's12345");
    check("they'vE and we'lL 1");
}
