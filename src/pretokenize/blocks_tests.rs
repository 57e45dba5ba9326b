//! Tests of `blocks.rs`: the classes of each block against byte-by-byte ones, on every
//! SIMD path this target has, and the piece starts of a few blocks against the regex.

use super::super::super::classes::{classes, LETTER, LOWER, NEWLINE, NUMBER, UPPER, WS};
use super::*;

/// Whether this target classifies blocks (`class_bits` is not always `None`).
const CLASSIFIES: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// The bits of a block's classes that count (below `known`), and `known`.
fn used(c: Option<ClassBits>) -> Option<[u64; 12]> {
    c.map(|c| {
        let m = below(c.known);
        [
            c.letters & m,
            c.digits & m,
            c.newlines & m,
            c.spaces & m,
            c.space & m,
            c.others & m,
            c.apostrophes & m,
            c.lower & m,
            c.slash & m,
            c.caseless & m,
            c.long_others & m,
            c.known as u64,
        ]
    })
}

/// Characters at the edges of what blocks take: Hangul syllables' first and last, their
/// neighbours (Yi, Meetei Mayek digits, Jamo, unassigned), the two-byte Latin and Cyrillic
/// letters' first and last and the symbols and marks among and next to them, other
/// whitespace and punctuation, two- and four-byte characters, the CJK Unified Ideographs'
/// first and last and their neighbours (Extension A, Yijing hexagrams, Yi), and the CJK and
/// full-width punctuation's ends and neighbours (a letter, a number, ideographic space), and
/// general punctuation's (a mark, the line separator), and kana's ends and the characters
/// among them that are not letters (unassigned, sound marks, `゠`, `・`, Bopomofo next).
const EDGES: [char; 70] = [
    '\u{AC00}', '\u{D7A3}', '한', '\u{ABFF}', '\u{ABF0}', '\u{A000}', '\u{D7A4}', '\u{D7B0}',
    '\u{D7FF}', '\u{E000}', '\u{3000}', '\u{A0}', '”', '·', 'é', '😀', 'À', 'ɏ', '\u{2BF}',
    '\u{2C0}', '×', '÷', '¿', 'Ѐ', 'ӿ', '҂', '\u{489}', 'Ҋ', '\u{500}', '\u{4E00}', '\u{9FFF}',
    '中', '\u{4DFF}', '\u{4DBF}', '，', '。', '（', '」', '\u{3000}', '\u{3004}', '\u{3005}',
    '\u{3007}', '\u{3008}', '\u{301F}', '\u{3020}', '\u{FF01}', '\u{FF0F}', '\u{FF10}', '\u{FF20}',
    '\u{FF21}', '\u{200F}', '\u{2010}', '\u{2027}', '\u{2028}', '…', '\u{3040}', '\u{3041}',
    '\u{3096}', '\u{3097}', '\u{3099}', '\u{309C}', '\u{309D}', '\u{309F}', '\u{30A0}', '\u{30A1}',
    '\u{30FA}', '\u{30FB}', '\u{30FC}', '\u{30FF}', '\u{3100}',
];

/// Blocks to classify, all cut from valid UTF-8 (as blocks are): each ASCII byte and
/// each of `EDGES` at each place of a block of letters (a character cut by the block's
/// end included), every code point from U+0080 to U+07FF, U+2000 to U+206F (general
/// punctuation), U+3000 to U+33FF (CJK
/// punctuation and kana), U+4D00 to U+50FF, U+9E00 to U+9FFF, U+A000 to U+D7FF and U+FF00
/// to U+FFFF (full-width forms), and
/// every fifth from U+3400 to U+9DFF, at places near the rules' limits, and random blocks
/// of ASCII, Hangul, Han, kana, Cyrillic, Latin and other characters.
fn blocks_to_try() -> Vec<[u8; 64]> {
    let cut = |text: &[u8]| -> [u8; 64] { text[..64].try_into().unwrap() };
    let mut out = Vec::new();
    for x in 0u8..128 {
        for i in 0..64 {
            let mut block = [b'a'; 64];
            block[i] = x;
            out.push(block);
        }
    }
    let with = |c: char, i: usize| {
        let mut text = vec![b'a'; 70];
        let mut buf = [0; 4];
        let bytes = c.encode_utf8(&mut buf).as_bytes();
        text[i..i + bytes.len()].copy_from_slice(bytes);
        cut(&text)
    };
    for c in EDGES {
        for i in 0..64 {
            out.push(with(c, i));
        }
    }
    let han_between = ('\u{3400}'..='\u{9DFF}').step_by(5);
    for c in ('\u{80}'..='\u{7FF}')
        .chain('\u{2000}'..='\u{206F}')
        .chain('\u{3000}'..='\u{33FF}')
        .chain('\u{4D00}'..='\u{50FF}')
        .chain('\u{9E00}'..='\u{9FFF}')
        .chain('\u{A000}'..='\u{D7FF}')
        .chain('\u{FF00}'..='\u{FFFF}')
        .chain(han_between)
    {
        for i in [0, 29, 30, 31, 32, 61, 62, 63] {
            out.push(with(c, i));
        }
    }
    let mut rng = crate::rng::SplitMix64::new(11);
    for _ in 0..20_000 {
        let mut text = String::new();
        while text.len() < 64 {
            let r = rng.next_u64();
            let c = match r % 12 {
                0..=3 => (r >> 8 & 0x7F) as u8 as char,
                4 => char::from_u32(0xAC00 + (r >> 8) as u32 % 11_172).unwrap(),
                5 if r & 0x80 == 0 => char::from_u32(0x4E00 + (r >> 8) as u32 % 0x5200).unwrap(),
                5 if r & 0x100 == 0 => char::from_u32(0x3040 + (r >> 9) as u32 % 0xC0).unwrap(),
                5 => ['，', '。', '、', '「', '」', '（', '）', '：', '！', '？']
                    [(r >> 8) as usize % 10],
                6..=7 => char::from_u32(0x400 + (r >> 8) as u32 % 0x100).unwrap(),
                8..=9 => char::from_u32(0xC0 + (r >> 8) as u32 % 0x200).unwrap(),
                10 => EDGES[(r >> 8) as usize % EDGES.len()],
                _ => char::from_u32((r >> 8) as u32 % 0x11_0000).unwrap_or('x'),
            };
            text.push(c);
        }
        out.push(cut(text.as_bytes()));
    }
    out
}

/// Whether this CPU has AVX-512BW, which the tests of the wide path need; says so when it
/// has not (the test is then skipped).
#[cfg(target_arch = "x86_64")]
fn has_wide_blocks() -> bool {
    let has = crate::pretokenize::fast::wide_blocks();
    if !has {
        eprintln!("skipped: this CPU has no AVX-512BW");
    }
    has
}

/// The classes as AVX-512BW finds them are SSE2's (`blocks_to_try`). Skipped (and said)
/// on a CPU without it.
#[cfg(target_arch = "x86_64")]
#[test]
fn wide_class_bits_agree_with_sse2() {
    if !has_wide_blocks() {
        return;
    }
    for block in blocks_to_try() {
        for cased in [false, true] {
            let (wide, narrow) = if cased {
                (
                    class_bits::<true, true>(&block, 0),
                    class_bits::<true, false>(&block, 0),
                )
            } else {
                (
                    class_bits::<false, true>(&block, 0),
                    class_bits::<false, false>(&block, 0),
                )
            };
            assert_eq!(used(wide), used(narrow), "{block:?}");
        }
    }
}

/// A text's last bytes read by one masked load (`tail_bits_wide`) class as those bytes
/// copied into a block of spaces do, for every length a tail has. Skipped (and said) on a
/// CPU without AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[test]
fn wide_tails_agree_with_a_copy_into_spaces() {
    if !has_wide_blocks() {
        return;
    }
    for block in blocks_to_try().iter().step_by(7) {
        for len in 1..=64 {
            let rest = &block[..len];
            assert_eq!(
                used(tail_bits::<false, true>(rest)),
                used(tail_bits::<false, false>(rest)),
                "{rest:?}"
            );
            assert_eq!(
                used(tail_bits::<true, true>(rest)),
                used(tail_bits::<true, false>(rest)),
                "{rest:?}"
            );
        }
    }
}

/// A text that ends on the last byte of a page, with no page mapped after it: the masked
/// load of its last block reads nothing past the end (it would fault).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn a_tail_at_the_end_of_mapped_memory_is_read_safely() {
    if !has_wide_blocks() {
        return;
    }
    const PAGE: usize = 4096;
    // SAFETY: two fresh anonymous pages, the second made inaccessible; only the first is
    // written and read through the slice, which ends where the first page does.
    unsafe {
        let base = libc::mmap(
            std::ptr::null_mut(),
            2 * PAGE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert_ne!(base, libc::MAP_FAILED);
        let base = base as *mut u8;
        assert_eq!(
            libc::mprotect(base.add(PAGE) as *mut _, PAGE, libc::PROT_NONE),
            0
        );
        let text = b"int main(void) { return 0; }";
        for len in TAIL_MIN..=text.len() {
            let start = base.add(PAGE - len);
            std::ptr::copy_nonoverlapping(text.as_ptr(), start, len);
            let b = std::slice::from_raw_parts(start, len);
            assert_eq!(
                piece_starts::<false, true>(b, 0),
                piece_starts::<false, false>(b, 0),
                "{len}"
            );
        }
        assert_eq!(libc::munmap(base as *mut _, 2 * PAGE), 0);
    }
}

#[test]
fn byte_bits_agree_with_the_class_table_on_every_ascii_byte() {
    let table = classes();
    for x in 0u8..128 {
        let f = table.ascii[x as usize];
        let one = byte_bits(x);
        assert_eq!(one.letters == 1, f & LETTER != 0, "{x:#x}");
        assert_eq!(one.digits == 1, f & NUMBER != 0, "{x:#x}");
        assert_eq!(one.newlines == 1, f & NEWLINE != 0, "{x:#x}");
        assert_eq!(one.spaces == 1, f & WS != 0 && f & NEWLINE == 0, "{x:#x}");
        assert_eq!(one.others == 1, f & (WS | LETTER | NUMBER) == 0, "{x:#x}");
    }
}

/// Whether blocks take `c` for a letter: Hangul syllables, CJK Unified Ideographs
/// (U+4E00 to U+9FFF), kana but its marks, `゠` and `・`, and for cl100k two-byte Latin
/// and IPA letters but `×` and `÷`, Cyrillic but `҂` and its combining marks; for o200k
/// (`CASED`) Latin-1's letters and the Cyrillic U+0400 to U+045F.
fn block_letter<const CASED: bool>(c: char) -> bool {
    let kana = matches!(
        c,
        '\u{3041}'..='\u{3096}'
            | '\u{309D}'..='\u{309F}'
            | '\u{30A1}'..='\u{30FA}'
            | '\u{30FC}'..='\u{30FF}'
    );
    if kana {
        return true;
    }
    if CASED {
        return matches!(
            c,
            '\u{AC00}'..='\u{D7A3}' | '\u{4E00}'..='\u{9FFF}' | 'À'..='ÿ' | '\u{400}'..='\u{45F}'
        ) && !matches!(c, '×' | '÷');
    }
    matches!(
        c,
        '\u{AC00}'..='\u{D7A3}' | '\u{4E00}'..='\u{9FFF}' | '\u{C0}'..='\u{2BF}' | '\u{400}'..='\u{4FF}'
    ) && !matches!(c, '×' | '÷' | '\u{482}'..='\u{489}')
}

/// Whether blocks take `c` as a punctuation character of three bytes (`others`): general
/// punctuation U+2010 to U+2027, CJK punctuation U+3001 to U+3004 and U+3008 to U+301F,
/// full-width U+FF01 to U+FF0F and U+FF1A to U+FF20, and `・` (U+30FB).
fn block_punctuation(c: char) -> bool {
    matches!(
        c,
        '\u{2010}'..='\u{2027}'
            | '\u{3001}'..='\u{3004}'
            | '\u{3008}'..='\u{301F}'
            | '\u{30FB}'
            | '\u{FF01}'..='\u{FF0F}'
            | '\u{FF1A}'..='\u{FF20}'
    )
}

/// A block's classes worked out a character at a time, as `class_bits` must give them:
/// ASCII bytes by `byte_bits`, and the characters of `block_letter` wholly in the block as
/// letters, for o200k lower-case ones as `lower` too, and the ones in both of its sets as
/// `lower` and `caseless` (checked against the class table), and the characters of
/// `block_punctuation` as `others` with their first bytes in `long_others`; the block is
/// known up to the first other character, and `None` when that is under 32 bytes.
fn class_bits_bytewise<const CASED: bool>(block: &[u8; 64]) -> Option<[u64; 12]> {
    let mut out = [0u64; 12];
    let mut i = 0;
    while i < 64 {
        if block[i].is_ascii() {
            let c = byte_bits(block[i]);
            let lower = if CASED { c.lower } else { 0 };
            let slash = if CASED { c.slash } else { 0 };
            let each = [
                c.letters,
                c.digits,
                c.newlines,
                c.spaces,
                c.space,
                c.others,
                c.apostrophes,
                lower,
                slash,
            ];
            for (word, bit) in out.iter_mut().zip(each) {
                *word |= bit << i;
            }
            i += 1;
            continue;
        }
        let len = match block[i] {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            _ => 4,
        };
        let whole = block
            .get(i..i + len)
            .and_then(|b| std::str::from_utf8(b).ok())
            .and_then(|s| s.chars().next());
        if let Some(c) = whole.filter(|&c| block_punctuation(c)) {
            // `others`, never a letter, a number or whitespace (the class table says so).
            let class = classes().of(c as u32);
            assert_eq!(class & (LETTER | NUMBER | WS), 0, "{c}");
            out[5] |= ((1 << len) - 1) << i;
            out[10] |= 1 << i;
            i += len;
            continue;
        }
        let letter = whole.filter(|&c| block_letter::<CASED>(c));
        let Some(c) = letter else { break };
        let class = classes().of(c as u32);
        assert_ne!(class & LETTER, 0, "{c}");
        let bits = ((1 << len) - 1) << i;
        out[0] |= bits;
        if CASED {
            // o200k's sets of capitals and of the rest: in one, or both (Hangul, Han and
            // kana: `Lo`, `Lm`).
            assert_ne!(class & (UPPER | LOWER), 0, "{c}");
            if class & LOWER != 0 {
                out[7] |= bits;
            }
            if class & UPPER != 0 && class & LOWER != 0 {
                out[9] |= bits;
            }
        }
        i += len;
    }
    out[11] = i as u64;
    (i >= 32).then_some(out)
}

/// `class_bits` (SSE2 on x86_64, NEON on AArch64) gives each block of `blocks_to_try`
/// the classes `class_bits_bytewise` does, and stops where it does.
#[test]
fn class_bits_agree_with_the_bytewise_classes() {
    if !CLASSIFIES {
        eprintln!("skipped: no block classification on this target");
        return;
    }
    for block in blocks_to_try() {
        let cl100k = used(class_bits::<false, false>(&block, 0));
        assert_eq!(cl100k, class_bits_bytewise::<false>(&block), "{block:?}");
        let o200k = used(class_bits::<true, false>(&block, 0));
        assert_eq!(o200k, class_bits_bytewise::<true>(&block), "{block:?}");
    }
}

#[test]
fn non_ascii_and_short_blocks_are_left_to_the_byte_splitter() {
    let mut text = vec![b'a'; 65];
    let starts = |t: &[u8]| {
        [
            piece_starts::<false, false>(t, 0),
            piece_starts::<true, false>(t, 0),
        ]
    };
    if CLASSIFIES {
        assert_eq!(starts(&text), [None; 2]); // one piece: no start to give
        text[30] = b'.';
        assert_eq!(starts(&text), [Some(1 | 1 << 30); 2]); // `.aaa` from 30
        text[30] = b'a';
    }
    assert_eq!(starts(&text[..64]), [None; 2]);
    let dot = "·".as_bytes(); // U+00B7, punctuation: blocks take no such character
    text[31..33].copy_from_slice(dot);
    assert_eq!(starts(&text), [None; 2]);
    text[31..33].copy_from_slice(b"aa");
    if CLASSIFIES {
        // Later in the block, or after it, such a character ends the block early.
        text[21] = b' ';
        text[40..42].copy_from_slice(dot);
        assert_eq!(starts(&text), [Some(1 | 1 << 21); 2]);
        text[40..42].copy_from_slice(b"aa");
        text[64] = 0xc3;
        assert_eq!(starts(&text), [Some(1 | 1 << 21); 2]);
        text[64] = b'a';
        // Both take `é` as a lower-case letter (`aaéaa` is one word), and o200k starts a
        // word at the capital `Ж` after it.
        text[40..42].copy_from_slice("é".as_bytes());
        text[42..44].copy_from_slice("Ж".as_bytes());
        assert_eq!(
            starts(&text),
            [Some(1 | 1 << 21), Some(1 | 1 << 21 | 1 << 42)]
        );
        text[40..44].copy_from_slice(b"aaaa");
        // Both take a Hangul syllable as a letter (`aa한aa` is one word, `aa 한aa` two).
        text[40..43].copy_from_slice("한".as_bytes());
        assert_eq!(starts(&text), [Some(1 | 1 << 21); 2]);
        text[39] = b' ';
        assert_eq!(starts(&text), [Some(1 | 1 << 21 | 1 << 39); 2]);
        // o200k leaves a capital right after a syllable to the byte splitter (`한A` ends a
        // word before `A`, `한A한` does not); a capital before one is a word's first letter.
        text[43] = b'A';
        assert_eq!(starts(&text), [Some(1 | 1 << 21 | 1 << 39), None]);
        text[43] = b'a';
        text[40] = b'A';
        text[41..44].copy_from_slice("한".as_bytes());
        assert_eq!(starts(&text), [Some(1 | 1 << 21 | 1 << 39); 2]);
        // A syllable that the block's end cuts ends the block before it.
        text[62..65].copy_from_slice("한".as_bytes());
        assert_eq!(starts(&text), [Some(1 | 1 << 21 | 1 << 39); 2]);
    }
}

/// `starts` (of the block at the start of `text`) are the regex's piece starts in the first
/// 64 bytes, up to the block's last start (the ones it settles).
fn assert_settled_regex_starts(pattern: &str, text: &str, starts: u64) {
    let regex = fancy_regex::Regex::new(pattern).unwrap();
    let mut expected = 0u64;
    for m in regex.find_iter(text) {
        let start = m.unwrap().start();
        if start < 64 {
            expected |= 1 << start;
        }
    }
    let settled = u64::MAX >> starts.leading_zeros();
    assert_eq!(
        starts,
        expected & settled,
        "{text:?}: {starts:#b} vs {expected:#b}"
    );
}

/// The starts a block gives are the regex's piece boundaries in it (those the block
/// settles: up to its last start), for both kinds of pattern.
#[test]
fn a_block_of_english_gives_the_regex_boundaries() {
    use super::super::{CL100K, O200K};
    let text = "He said: \"don't\" -- it's 12345 (or 6)\n\n  and THE EndGame's.\n\tNext  words";
    assert!(text.len() > 64);
    for (pattern, starts) in [
        (CL100K, piece_starts::<false, false>(text.as_bytes(), 0)),
        (O200K, piece_starts::<true, false>(text.as_bytes(), 0)),
    ] {
        if !CLASSIFIES {
            assert_eq!(starts, None);
            continue;
        }
        let starts = starts.expect("a block of plain ASCII");
        assert!(starts.count_ones() > 15, "{starts:#b}");
        assert_settled_regex_starts(pattern, text, starts);
    }
}

/// A text's last block (64 bytes or fewer from `at`) gives the regex's boundaries up to
/// its last start too: there the text's end follows, so a whitespace run that reaches it
/// is left whole to the byte splitter (`\s++$`), an apostrophe at the end starts no
/// contraction, and no start is past the end. A tail of under 64 bytes that ends in no
/// whitespace, or in line breaks only, gives all the regex's boundaries and its end as a
/// start. Shorter tails are left to the byte splitter.
#[test]
fn a_texts_last_block_gives_the_regex_boundaries() {
    use super::super::{CL100K, O200K};
    let texts = [
        "He said: \"don't\" -- it's 12345 (or 6)",
        "a line that ends in spaces   ",
        "a line that ends in a line break\n",
        "a line break\n and then words\n\n",
        "ends in an apostrophe'",
        "and THE EndGame's end's",
        "count 1234567 and 12",
        "slash\n/path after a line break",
        "exactly sixty-four bytes of text, ending with a word: here it is",
        "sixteen bytes ok",
        "Caf\u{e9} \u{416}\u{443}\u{43a} and more words",
        "a line that ends in CR LF\r\n",
        "punctuation, then line breaks.\n\n",
        "a word, then a tab\t",
        "digits at the end of a line 12345\n",
    ];
    for text in texts {
        assert!((TAIL_MIN..=64).contains(&text.len()), "{text:?}");
        let b = text.as_bytes();
        for (pattern, starts) in [
            (CL100K, piece_starts::<false, false>(b, 0)),
            (O200K, piece_starts::<true, false>(b, 0)),
        ] {
            if !CLASSIFIES {
                assert_eq!(starts, None);
                continue;
            }
            // o200k's `[\r\n/]*` after punctuation: a slash after a line break refuses a
            // block, at the end as in the middle.
            let Some(starts) = starts else {
                assert!(
                    pattern == O200K && text.contains("\n/"),
                    "{text:?}: no starts"
                );
                continue;
            };
            let len = b.len() as u32;
            assert_eq!(starts.checked_shr(len + 1).unwrap_or(0), 0, "{text:?}");
            let closed = starts.checked_shr(len).unwrap_or(0) == 1;
            let ends_in_spaces = text
                .trim_end_matches(['\r', '\n'])
                .ends_with(char::is_whitespace);
            assert_eq!(closed, len < 64 && !ends_in_spaces, "{text:?}");
            if closed {
                let regex = fancy_regex::Regex::new(pattern).unwrap();
                let all = (regex.find_iter(text)).fold(0u64, |s, m| s | 1 << m.unwrap().start());
                assert_eq!(starts, all | 1 << len, "{text:?}");
            } else {
                assert_settled_regex_starts(pattern, text, starts);
            }
        }
    }
    let short = &b"short text ab"[..];
    assert!(short.len() < TAIL_MIN);
    assert_eq!(piece_starts::<false, false>(short, 0), None);
    // From the middle of a text: only the bytes from `at` are the tail.
    let text = b"0123456789 words words, and then the tail: it's short.";
    let tail = piece_starts::<false, false>(text, 10);
    if CLASSIFIES {
        assert_eq!(tail.map(|s| s & 0b11), Some(1));
        assert_eq!(tail, piece_starts::<false, false>(&text[10..], 0));
    }
}

#[test]
fn digit_groups_start_every_three_digits_of_each_run() {
    // Runs of 7 digits from bit 0 and of 4 digits from bit 10, and one reaching bit 63.
    let d = 0b111_1111 | 0b1111 << 10 | 0b11111 << 59;
    assert_eq!(digit_groups(d), 1 << 3 | 1 << 6 | 1 << 13 | 1 << 62);
}
