//! Secrets taken out of text that is logged or stored: the bot token, and the interaction
//! tokens in Discord's URLs (`/interactions/{id}/{token}`, `/webhooks/{app}/{token}`) and in
//! payloads (`"token":"…"`, `token: "…"`). An interaction token lets anyone answer in the bot's
//! name for 15 minutes. Also an error's causes in words, each said once, for the same logs.

/// What a secret is replaced with.
const HIDDEN: &str = "[redacted]";

/// `text` with `secrets` (the bot token) and every interaction token replaced.
pub fn redact(text: &str, secrets: &[&str]) -> String {
    let mut s = text.to_string();
    for secret in secrets.iter().filter(|t| t.len() >= 8) {
        if s.contains(secret) {
            s = s.replace(secret, HIDDEN);
        }
    }
    // A URL's token follows its id.
    for marker in ["/interactions/", "/webhooks/"] {
        s = hide_after(&s, marker, true, |c| {
            c == '/' || c == '?' || c == '"' || c == ')' || c.is_whitespace()
        });
    }
    // A payload's or a struct's `token` field.
    for marker in ["\"token\":\"", "\"token\": \"", "token: \"", "token=\""] {
        s = hide_after(&s, marker, false, |c| c == '"');
    }
    s
}

/// Replaces what follows each `marker` (after one `id/` segment when `skip_id`) up to a
/// character that `ends` it.
fn hide_after(text: &str, marker: &str, skip_id: bool, ends: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(marker) {
        let (before, after) = rest.split_at(at + marker.len());
        out.push_str(before);
        let mut tail = after;
        if skip_id {
            let id_len = tail
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(tail.len());
            if id_len == 0 || !tail[id_len..].starts_with('/') {
                rest = tail;
                continue;
            }
            out.push_str(&tail[..=id_len]);
            tail = &tail[id_len + 1..];
        }
        let len = tail.find(&ends).unwrap_or(tail.len());
        if len > 0 {
            out.push_str(HIDDEN);
        }
        rest = &tail[len..];
    }
    out.push_str(rest);
    out
}

/// An error with its causes, each cause said once: one whose text its parent already
/// contains (as serenity and reqwest repeat their sources) is left out.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut parent = out.clone();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !text.is_empty() && !parent.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        parent = text;
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_hidden_wherever_they_appear() {
        let t = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5OmFiY2RlZg";
        let cases = [
            format!("error sending request for url (https://discord.com/api/v10/interactions/123/{t}/callback)"),
            format!("POST /api/v10/webhooks/1100/{t}/messages/@original failed"),
            format!("PATCH /api/v10/webhooks/1100/{t}?wait=true"),
            format!(r#"text: {{"id":"1","token":"{t}","type":2}}"#),
            format!(r#"{{"token": "{t}"}}"#),
            format!(r#"CommandInteraction {{ id: 1, token: "{t}", version: 1 }}"#),
            format!("Bot my-bot-token-value and {t}").replace(t, "x"),
        ];
        for c in &cases {
            let r = redact(c, &["my-bot-token-value"]);
            assert!(!r.contains(t) && !r.contains("my-bot-token-value"), "{r}");
            assert!(r.contains(HIDDEN), "{r}");
        }
        assert_eq!(
            redact(&cases[0], &[]),
            "error sending request for url (https://discord.com/api/v10/interactions/123/[redacted]/callback)"
        );
        // Anything else is left alone.
        let plain = "move D4 by aoife in /channels/12/messages; token count 3";
        assert_eq!(redact(plain, &["secret-token"]), plain);
    }
}
