//! Progress bars for long work, drawn on stderr only when it is a terminal and wanted.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub(crate) fn bar(show: bool, total: Option<u64>, what: &str, unit: &str) -> ProgressBar {
    let bar = match total {
        Some(t) => ProgressBar::new(t),
        None => ProgressBar::new_spinner(),
    };
    if !show {
        bar.set_draw_target(ProgressDrawTarget::hidden());
        return bar;
    }
    let template = match (total, unit) {
        (Some(_), "bytes") => "{msg:>9} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        (Some(_), _) => "{msg:>9} [{bar:30}] {pos}/{len} ({per_sec}, {eta})",
        (None, "bytes") => "{msg:>9} {spinner} {bytes} ({bytes_per_sec})",
        (None, _) => "{msg:>9} {spinner} {pos} ({per_sec})",
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(what.to_string());
    bar
}
