//! Long texts cut into Discord messages without cutting a word, a move or a code block.

/// Discord's limit on message content, in characters.
pub(super) const MAX_CONTENT: usize = 2000;

/// A code fence's marker.
const FENCE: &str = "```";
/// Room kept in every chunk for closing a fence it leaves open, and for a reopening fence's
/// language tag at the start of the next.
const FENCE_ROOM: usize = 24;

/// The pieces a line is cut into: the line whole when it fits in a message, else its words
/// (each with the spaces after it), and a word too long for any message in hard cuts.
fn pieces(line: &str) -> Vec<&str> {
    let room = MAX_CONTENT - 2 * FENCE_ROOM;
    if line.chars().count() <= room {
        return vec![line];
    }
    let mut out = Vec::new();
    for word in line.split_inclusive(' ') {
        let mut rest = word;
        while rest.chars().count() > room {
            let cut = rest.char_indices().nth(room).map_or(rest.len(), |(i, _)| i);
            out.push(&rest[..cut]);
            rest = &rest[cut..];
        }
        if !rest.is_empty() {
            out.push(rest);
        }
    }
    out
}

/// The fence open after `piece` when `open` (the opening line's fence, with its language tag)
/// was open before it: every ```` ``` ```` in the piece opens or closes one.
fn fence_after(open: Option<String>, piece: &str) -> Option<String> {
    let mut open = open;
    for (i, _) in piece.match_indices(FENCE) {
        open = match open {
            Some(_) => None,
            None => {
                let tag: String = piece[i + FENCE.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                    .take(FENCE_ROOM - FENCE.len() - 2)
                    .collect();
                Some(format!("{FENCE}{tag}"))
            }
        };
    }
    open
}

/// Splits text into messages of at most 2000 characters: at line breaks, else at spaces, so
/// that no word or move is cut (only a single word longer than a message is). A code fence
/// open at a cut is closed at the end of that message and opened again at the start of the
/// next.
pub(super) fn split_content(text: &str) -> Vec<String> {
    if text.chars().count() <= MAX_CONTENT {
        return vec![text.to_string()];
    }
    let mut out = Vec::new();
    let mut cur = String::new();
    // What `cur` starts with (a reopened fence), which alone is not worth a message.
    let mut prefix_len = 0;
    let mut fence: Option<String> = None;
    for line in text.split_inclusive('\n') {
        for piece in pieces(line) {
            let after = fence_after(fence.clone(), piece);
            let room = if after.is_some() { FENCE_ROOM } else { 0 };
            let len = cur.chars().count();
            if len + piece.chars().count() + room > MAX_CONTENT && len > prefix_len {
                if fence.is_some() {
                    if !cur.ends_with('\n') {
                        cur.push('\n');
                    }
                    cur.push_str(FENCE);
                }
                out.push(std::mem::take(&mut cur));
                if let Some(open) = &fence {
                    cur = format!("{open}\n");
                }
                prefix_len = cur.chars().count();
            }
            cur.push_str(piece);
            fence = after;
        }
    }
    if cur.chars().count() > prefix_len || out.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every chunk fits and has balanced fences, and the chunks give the words of the text in
    /// order, none cut (fence markers, which cuts add, left aside).
    fn check(text: &str) -> Vec<String> {
        let chunks = split_content(text);
        for c in &chunks {
            assert!(
                c.chars().count() <= MAX_CONTENT,
                "{} chars",
                c.chars().count()
            );
            assert_eq!(
                c.matches(FENCE).count() % 2,
                0,
                "unbalanced fences in {c:?}"
            );
        }
        let words = |t: &str| -> Vec<String> {
            t.split_whitespace()
                .filter(|w| !w.starts_with(FENCE))
                .map(str::to_string)
                .collect()
        };
        let got: Vec<String> = chunks.iter().flat_map(|c| words(c)).collect();
        assert_eq!(got, words(text), "a word was cut or lost");
        chunks
    }

    #[test]
    fn a_long_record_is_cut_between_moves_with_its_fence_closed_and_reopened() {
        let moves: Vec<String> = (0..420)
            .map(|i| format!("c{}-d{}*", i % 7, i % 5))
            .collect();
        let text = format!(
            "```\n# game 12\nvariant: ard-ri\nmoves: {}\n```",
            moves.join(" ")
        );
        let chunks = check(&text);
        assert!(chunks.len() >= 2);
        for c in &chunks {
            assert!(c.starts_with("```\n"), "{c:?}");
            assert!(c.ends_with("```"), "{c:?}");
            for w in c.split_whitespace().filter(|w| !w.starts_with(FENCE)) {
                assert!(
                    w == "#"
                        || w == "game"
                        || w == "12"
                        || w.ends_with(':')
                        || w == "ard-ri"
                        || moves.iter().any(|m| m == w),
                    "cut move {w:?}"
                );
            }
        }
    }

    #[test]
    fn lines_go_whole_and_a_fence_keeps_its_language() {
        let line = "word ".repeat(30);
        let text = format!(
            "intro\n```text\n{}```\nafter",
            format!("{line}\n").repeat(30)
        );
        let chunks = check(&text);
        assert!(chunks.len() >= 2);
        assert!(chunks[1].starts_with("```text\n"), "{:?}", &chunks[1][..20]);
        // Cut at line breaks: every chunk but the last ends a line (before its closing fence).
        for c in &chunks[..chunks.len() - 1] {
            assert!(c.ends_with("\n```") || c.ends_with('\n'), "{c:?}");
        }
    }

    #[test]
    fn a_ping_stays_whole_and_short_text_is_left_alone() {
        let name = "x".repeat(1990);
        let text = format!("Move by {name}. <@1000000000000000002>, your move.");
        let chunks = check(&text);
        assert_eq!(chunks.len(), 2);
        assert!(chunks[1].contains("<@1000000000000000002>"));
        assert_eq!(
            split_content("short ``` text"),
            vec!["short ``` text".to_string()]
        );
        // A word longer than a message is cut, as it must be.
        let long = "y".repeat(4100);
        let chunks = split_content(&long);
        assert_eq!(chunks.concat(), long);
        assert!(chunks.iter().all(|c| c.chars().count() <= MAX_CONTENT));
    }
}
