//! A small client of Chromium's DevTools protocol, for the web companion's browser tests
//! (`tests/browser.rs`): a headless Chromium from the distribution's packages, driven over
//! one WebSocket (tokio-tungstenite, already in the build for axum) with the protocol's JSON
//! messages, in its flat session mode.
//!
//! It speaks only what the tests need: pages of a given size, navigation, keys and clicks as
//! input events (not script calls), script evaluation, screenshots, script switched off, and
//! a log of what went wrong on a page (console errors, exceptions, failed requests and answers
//! of 400 and up). A generated client of the whole protocol (chromiumoxide, headless_chrome)
//! would add tens of thousands of lines to every cold build for these dozen methods.

#![allow(dead_code)]

use base64::Engine as _;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, Notify};
use tokio_tungstenite::tungstenite::Message;

/// How long one protocol call or one wait may take: generous, for a loaded CI machine.
const PATIENCE: Duration = Duration::from_secs(30);

/// The Chromium to run: `TARA_BOT_CHROMIUM`, else the first of the usual names on the path.
fn chromium_path() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("TARA_BOT_CHROMIUM") {
        return Some(p.into());
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| {
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
                .map(move |dir| dir.join(name))
                .collect::<Vec<_>>()
        })
        .find(|p| p.is_file())
}

type Pending = HashMap<u64, oneshot::Sender<Result<Value, String>>>;

/// An event the browser sent: its session (a page's), its method and its parameters.
#[derive(Clone, Debug)]
pub struct Event {
    pub session: Option<String>,
    pub method: String,
    pub params: Value,
}

/// A running headless Chromium and the connection to it. Dropping it ends the browser.
pub struct Browser {
    child: Child,
    out: mpsc::UnboundedSender<Message>,
    pending: Arc<Mutex<Pending>>,
    events: Arc<Mutex<Vec<Event>>>,
    arrived: Arc<Notify>,
    next: AtomicU64,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    /// Starts Chromium, or `None` when it is not installed and this is not CI (where a missing
    /// browser fails the tests instead, as a missing PostgreSQL does).
    pub async fn launch() -> Option<Browser> {
        let Some(path) = chromium_path() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "Chromium is not installed (.ci/run installs it: apt-get install chromium)"
            );
            eprintln!("skipped: Chromium is not installed (apt-get install chromium)");
            return None;
        };
        let profile = tempfile::tempdir().unwrap();
        // As the machine's own probe started it: no sandbox as root, and nothing that reaches
        // for the network in the background (this machine has none to give it).
        let mut child = Command::new(&path)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--hide-scrollbars",
                "--force-color-profile=srgb",
                "--font-render-hinting=none",
                "--remote-debugging-port=0",
                "about:blank",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", path.display()));
        // Chromium says where its DevTools listen on its error output; the rest of that output
        // is read and dropped, so that a full pipe never stops it.
        let stderr = child.stderr.take().unwrap();
        let (found, address) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut found = Some(found);
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("DevTools listening on ") {
                    if let Some(f) = found.take() {
                        let _ = f.send(url.trim().to_string());
                    }
                }
            }
        });
        let url = tokio::task::spawn_blocking(move || address.recv_timeout(PATIENCE))
            .await
            .unwrap()
            .expect("Chromium did not open its DevTools port");
        let (socket, _) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .expect("cannot connect to Chromium's DevTools");
        let (mut sink, mut stream) = socket.split();
        let (out, mut outgoing) = mpsc::unbounded_channel::<Message>();
        tokio::spawn(async move {
            while let Some(m) = outgoing.recv().await {
                if sink.send(m).await.is_err() {
                    break;
                }
            }
        });
        let pending: Arc<Mutex<Pending>> = Arc::default();
        let events: Arc<Mutex<Vec<Event>>> = Arc::default();
        let arrived = Arc::new(Notify::new());
        let (p, e, a) = (pending.clone(), events.clone(), arrived.clone());
        tokio::spawn(async move {
            while let Some(Ok(m)) = stream.next().await {
                let Message::Text(text) = m else { continue };
                let v: Value = serde_json::from_str(text.as_str()).unwrap_or(Value::Null);
                if let Some(id) = v["id"].as_u64() {
                    let answer = match v.get("error") {
                        Some(err) => Err(err.to_string()),
                        None => Ok(v["result"].clone()),
                    };
                    if let Some(tx) = p.lock().unwrap().remove(&id) {
                        let _ = tx.send(answer);
                    }
                } else if let Some(method) = v["method"].as_str() {
                    e.lock().unwrap().push(Event {
                        session: v["sessionId"].as_str().map(str::to_string),
                        method: method.to_string(),
                        params: v["params"].clone(),
                    });
                    a.notify_waiters();
                }
            }
        });
        Some(Browser {
            child,
            out,
            pending,
            events,
            arrived,
            next: AtomicU64::new(1),
            _profile: profile,
        })
    }

    /// Calls `method` (in the page of `session`, or of the browser), and its result.
    pub async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        let mut m = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            m["sessionId"] = json!(s);
        }
        self.out
            .send(Message::text(m.to_string()))
            .map_err(|_| "the browser is gone".to_string())?;
        match tokio::time::timeout(PATIENCE, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(format!("{method}: the browser is gone")),
            Err(_) => Err(format!("{method}: no answer in {PATIENCE:?}")),
        }
    }

    /// A new tab of `width`×`height` CSS pixels (`mobile`: a phone's viewport and touch).
    pub async fn page(&self, width: u32, height: u32, mobile: bool) -> Page<'_> {
        self.page_at(width, height, mobile, 1).await
    }

    /// [`Browser::page`] on a screen of `scale` device pixels to a CSS pixel.
    pub async fn page_at(&self, width: u32, height: u32, mobile: bool, scale: u32) -> Page<'_> {
        let target = self
            .call(None, "Target.createTarget", json!({ "url": "about:blank" }))
            .await
            .unwrap();
        let attached = self
            .call(
                None,
                "Target.attachToTarget",
                json!({ "targetId": target["targetId"], "flatten": true }),
            )
            .await
            .unwrap();
        let page = Page {
            browser: self,
            session: attached["sessionId"].as_str().unwrap().to_string(),
            target: target["targetId"].as_str().unwrap().to_string(),
        };
        for domain in [
            "Page.enable",
            "Runtime.enable",
            "Network.enable",
            "Log.enable",
        ] {
            page.call(domain, json!({})).await;
        }
        page.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile }),
        )
        .await;
        page
    }

    /// The events of `session` so far.
    fn events_of(&self, session: &str) -> Vec<Event> {
        let events = self.events.lock().unwrap();
        events
            .iter()
            .filter(|e| e.session.as_deref() == Some(session))
            .cloned()
            .collect()
    }
}

/// One tab of the browser.
pub struct Page<'b> {
    browser: &'b Browser,
    session: String,
    target: String,
}

impl Page<'_> {
    /// Closes the tab (and the connections its page held: a browser opens only six to one
    /// site, and a live page holds one).
    pub async fn close(self) {
        self.browser
            .call(
                None,
                "Target.closeTarget",
                json!({ "targetId": self.target }),
            )
            .await
            .unwrap();
    }

    /// Calls `method` in this page; a protocol error fails the test.
    pub async fn call(&self, method: &str, params: Value) -> Value {
        self.browser
            .call(Some(&self.session), method, params)
            .await
            .unwrap_or_else(|e| panic!("{method}: {e}"))
    }

    /// How many times a page has finished loading in this tab.
    fn loads(&self) -> usize {
        self.browser
            .events_of(&self.session)
            .iter()
            .filter(|e| e.method == "Page.loadEventFired")
            .count()
    }

    /// Waits until the tab has loaded more than `before` pages (its pictures included).
    pub async fn loaded_after(&self, before: usize) {
        self.wait_for("a page to load", || self.loads() > before)
            .await;
    }

    /// Waits for `done` to hold, looking again whenever an event arrives (and every 50 ms).
    pub async fn wait_for(&self, what: &str, done: impl Fn() -> bool) {
        let deadline = Instant::now() + PATIENCE;
        while !done() {
            assert!(Instant::now() < deadline, "waited {PATIENCE:?} for {what}");
            let arrived = self.browser.arrived.notified();
            let _ = tokio::time::timeout(Duration::from_millis(50), arrived).await;
        }
    }

    /// Opens `url` and waits until it has loaded.
    pub async fn goto(&self, url: &str) {
        let before = self.loads();
        let r = self.call("Page.navigate", json!({ "url": url })).await;
        assert!(r.get("errorText").is_none(), "{url}: {r}");
        self.loaded_after(before).await;
    }

    /// Does `action` (a key or a click that follows a link) and waits for the page it opens.
    pub async fn navigates<F: std::future::Future<Output = ()>>(&self, action: F) {
        let before = self.loads();
        action.await;
        self.loaded_after(before).await;
    }

    /// The value of the script expression `js` (awaited when it is a promise).
    pub async fn eval(&self, js: &str) -> Value {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": js, "returnByValue": true, "awaitPromise": true }),
            )
            .await;
        if let Some(e) = r.get("exceptionDetails") {
            panic!("{js}: {e}");
        }
        r["result"]["value"].clone()
    }

    /// [`Page::eval`], or `None` when the page cannot answer (it is between two documents).
    pub async fn try_eval(&self, js: &str) -> Option<Value> {
        let r = self
            .browser
            .call(
                Some(&self.session),
                "Runtime.evaluate",
                json!({ "expression": js, "returnByValue": true, "awaitPromise": true }),
            )
            .await
            .ok()?;
        r.get("exceptionDetails")
            .is_none()
            .then(|| r["result"]["value"].clone())
    }

    /// Whether the page has asked for an address containing `part`.
    pub fn requested(&self, part: &str) -> bool {
        self.browser.events_of(&self.session).iter().any(|e| {
            e.method == "Network.requestWillBeSent"
                && e.params["request"]["url"]
                    .as_str()
                    .is_some_and(|u| u.contains(part))
        })
    }

    /// The script dialogs (`alert`…) the page has opened.
    pub fn dialogs(&self) -> Vec<String> {
        self.browser
            .events_of(&self.session)
            .iter()
            .filter(|e| e.method == "Page.javascriptDialogOpening")
            .map(|e| e.params["message"].to_string())
            .collect()
    }

    /// The page's address now.
    pub async fn url(&self) -> String {
        self.eval("location.href")
            .await
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Presses and releases `key` (a DOM key name: `ArrowRight`, `Home`, `Tab`…).
    pub async fn key(&self, key: &str) {
        let code = match key {
            "Tab" => 9,
            "Enter" => 13,
            "End" => 35,
            "Home" => 36,
            "ArrowLeft" => 37,
            "ArrowUp" => 38,
            "ArrowRight" => 39,
            "ArrowDown" => 40,
            other => panic!("no key code for {other}"),
        };
        // Input goes to the tab in front.
        self.call("Page.bringToFront", json!({})).await;
        for kind in ["rawKeyDown", "keyUp"] {
            self.call(
                "Input.dispatchKeyEvent",
                json!({ "type": kind, "key": key, "code": key,
                        "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code }),
            )
            .await;
        }
    }

    /// Clicks the middle of the first element `selector` finds, with the mouse.
    pub async fn click(&self, selector: &str) {
        let at = self
            .eval(&format!(
                "(() => {{ const e = document.querySelector({});
                    if (!e) return null;
                    e.scrollIntoView({{ block: 'center' }});
                    const r = e.getBoundingClientRect();
                    return [r.left + r.width / 2, r.top + r.height / 2]; }})()",
                json!(selector)
            ))
            .await;
        let (x, y) = match at.as_array() {
            Some(xy) => (xy[0].as_f64().unwrap(), xy[1].as_f64().unwrap()),
            None => panic!("nothing to click: {selector}"),
        };
        self.call(
            "Input.dispatchMouseEvent",
            json!({ "type": "mouseMoved", "x": x, "y": y, "button": "none" }),
        )
        .await;
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1 }),
            )
            .await;
        }
    }

    /// A screenshot of what the viewport shows, as PNG.
    pub async fn screenshot(&self) -> Vec<u8> {
        let r = self
            .call("Page.captureScreenshot", json!({ "format": "png" }))
            .await;
        base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().unwrap())
            .unwrap()
    }

    /// Switches the page's scripts off (or on again), as a browser without JavaScript.
    pub async fn scripts(&self, on: bool) {
        self.call(
            "Emulation.setScriptExecutionDisabled",
            json!({ "value": !on }),
        )
        .await;
    }

    /// Everything that went wrong on this tab so far: console errors and warnings, uncaught
    /// exceptions, the browser's own error log (a blocked script or style under the
    /// Content-Security-Policy lands there), requests that failed (not those cancelled by
    /// leaving a page) and answers of 400 and up.
    pub fn problems(&self) -> Vec<String> {
        let mut found = Vec::new();
        for e in self.browser.events_of(&self.session) {
            let p = &e.params;
            match e.method.as_str() {
                "Runtime.exceptionThrown" => {
                    found.push(format!("exception: {}", p["exceptionDetails"]))
                }
                "Runtime.consoleAPICalled"
                    if matches!(p["type"].as_str(), Some("error" | "warning" | "assert")) =>
                {
                    found.push(format!("console {}: {}", p["type"], p["args"]))
                }
                "Log.entryAdded"
                    if matches!(p["entry"]["level"].as_str(), Some("error" | "warning")) =>
                {
                    found.push(format!(
                        "log: {} ({})",
                        p["entry"]["text"], p["entry"]["url"]
                    ))
                }
                "Network.loadingFailed" if p["canceled"] != json!(true) => {
                    found.push(format!("failed request: {p}"))
                }
                "Network.responseReceived" if p["response"]["status"].as_u64() >= Some(400) => {
                    found.push(format!(
                        "{} {}",
                        p["response"]["status"], p["response"]["url"]
                    ))
                }
                _ => {}
            }
        }
        found
    }
}
