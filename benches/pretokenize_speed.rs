//! Pre-tokenizer throughput, fancy-regex against the fast splitters, one thread.
//!
//!     cargo bench --bench pretokenize_speed -- [--fast-only] FILE...
//!
//! Each pass counts the pieces, so neither side allocates per piece. The machine this runs
//! on is shared: to keep other processes' time out of the figure, each file is timed in
//! slices of about 16 KiB (cut after a line break), each slice's best of several passes is
//! kept, and the bests are added up. `--fast-only` skips the (slow) regex side;
//! `--only=NAME` times one pattern; `--lines` splits each line (without its `\n`) as a text
//! of its own, as per-line calls and batches of lines do.

use std::time::Instant;

use subword::pretokenize::{FastPattern, PreTokenizer, CLIP};

const SLICE: usize = 16 << 10;

/// Slices of about `SLICE` bytes, each ending after a `\n` (or at the end).
fn slices(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while rest.len() > SLICE {
        let cut = rest
            .get(SLICE..)
            .and_then(|tail| tail.find('\n'))
            .map_or(rest.len(), |i| SLICE + i + 1);
        let (head, tail) = rest.split_at(cut);
        out.push(head);
        rest = tail;
    }
    out.push(rest);
    out
}

/// MB/s over `text` and the number of pieces, or the error.
fn mb_per_s(
    pre: &PreTokenizer,
    text: &str,
    passes: usize,
    lines: bool,
) -> Result<(f64, usize), String> {
    let (mut seconds, mut pieces) = (0.0, 0);
    for slice in slices(text) {
        let texts: Vec<&str> = if lines {
            slice.split_terminator('\n').collect()
        } else {
            vec![slice]
        };
        let mut best = f64::INFINITY;
        let mut n = 0usize;
        for _ in 0..passes {
            n = 0;
            let start = Instant::now();
            for text in &texts {
                pre.for_each_piece(text, |_| n += 1)
                    .map_err(|e| e.message)?;
            }
            best = best.min(start.elapsed().as_secs_f64());
        }
        seconds += best;
        pieces += n;
    }
    Ok((text.len() as f64 / 1e6 / seconds, pieces))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let fast_only = args.iter().any(|a| a == "--fast-only");
    let only = args.iter().find_map(|a| a.strip_prefix("--only="));
    let lines = args.iter().any(|a| a == "--lines");
    println!("| corpus | MB | pattern | regex MB/s | fast MB/s | speed-up |");
    println!("| --- | ---: | --- | ---: | ---: | ---: |");
    for path in args.iter().filter(|a| !a.starts_with("--")) {
        let Ok(text) = std::fs::read_to_string(path) else {
            eprintln!("cannot read {path}");
            continue;
        };
        let name = path.rsplit('/').next().unwrap_or(path);
        let patterns = FastPattern::ALL
            .iter()
            .map(|fast| (fast.name(), fast.regex()))
            .chain([("clip", CLIP)]);
        for (pattern, regex) in patterns {
            if only.is_some_and(|name| name != pattern) {
                continue;
            }
            let quick = match PreTokenizer::regex(regex) {
                Ok(pre) => mb_per_s(&pre, &text, 30, lines),
                Err(e) => Err(e.message),
            };
            let slow = match PreTokenizer::regex_only(regex) {
                _ if fast_only => Err("skipped".to_string()),
                Ok(regex) => mb_per_s(&regex, &text, 2, lines),
                Err(e) => Err(e.message),
            };
            let cell = |r: &Result<(f64, usize), String>| match r {
                Ok((mb, _)) => format!("{mb:.0}"),
                Err(e) => e.clone(),
            };
            let ratio = match (&slow, &quick) {
                (Ok((s, ns)), Ok((q, nq))) if ns == nq => format!("{:.0}x", q / s),
                (Ok(_), Ok(_)) => "piece counts differ!".to_string(),
                _ => String::new(),
            };
            println!(
                "| {name} | {:.1} | {} | {} | {} | {ratio} |",
                text.len() as f64 / 1e6,
                pattern,
                cell(&slow),
                cell(&quick),
            );
        }
    }
}
