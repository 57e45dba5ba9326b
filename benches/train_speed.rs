//! Byte-level training time by stage: counting a file, then learning merges.
//!
//!     cargo bench --bench train_speed -- FILE VOCAB_SIZE [TIE_BREAK]
//!
//! Prints the seconds of each stage, the number of distinct words and a checksum of the
//! merges (to compare two builds' results).

use std::time::Instant;

use subword::count::{Counter, Utf8Errors};
use subword::normalize::Normalizer;
use subword::pretokenize::{PreTokenizer, CL100K};
use subword::symbols::{EndOfWord, Kind, SymbolRules};
use subword::train::{train, TieBreak, TrainConfig};

/// CPU seconds of this process so far (user + system), from /proc.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn main() -> Result<(), String> {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let (path, vocab) = match args.as_slice() {
        [p, v, ..] => (p.clone(), v.parse::<usize>().map_err(|e| e.to_string())?),
        _ => return Err("usage: train_speed FILE VOCAB_SIZE [TIE_BREAK]".into()),
    };
    let tie = TieBreak::parse(args.get(2).map_or("lexicographic", |s| s.as_str()))
        .map_err(|e| e.message)?;
    let start = Instant::now();
    let pre = PreTokenizer::regex(CL100K).map_err(|e| e.message)?;
    let mut counter = Counter::new(Normalizer::default(), pre);
    counter
        .add_file(&path, Utf8Errors::Strict, &mut |_| {})
        .map_err(|e| e.message)?;
    let counted = start.elapsed().as_secs_f64();
    let counted_cpu = cpu_seconds();
    let config = TrainConfig {
        rules: SymbolRules {
            kind: Kind::Byte,
            end_of_word: EndOfWord::None,
            end_of_word_symbol: String::new(),
        },
        num_merges: None,
        vocab_size: Some(vocab),
        min_frequency: 2,
        tie_break: tie,
        reserved: 0,
    };
    let t = Instant::now();
    let trained = train(&counter.table, &config, &mut |_, _| {}).map_err(|e| e.message)?;
    let trained_s = t.elapsed().as_secs_f64();
    let trained_cpu = cpu_seconds() - counted_cpu;
    let mut sum: u64 = 0xcbf29ce484222325;
    for (a, b) in &trained.merges {
        for byte in a.bytes().chain([0u8]).chain(b.bytes()).chain([1u8]) {
            sum = (sum ^ byte as u64).wrapping_mul(0x100000001b3);
        }
    }
    println!(
        "count {counted:.3}s (cpu {counted_cpu:.2}s)  train {trained_s:.3}s (cpu {trained_cpu:.2}s)  total {:.3}s  words {}  merges {}  checksum {sum:016x}",
        start.elapsed().as_secs_f64(),
        counter.table.len(),
        trained.merges.len()
    );
    Ok(())
}
