//! Short messages for the user: what was refused and why, where a screenshot went.

/// How a message is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Something done.
    Info,
    /// Something refused or failed; the app carries on.
    Error,
}

/// One message.
#[derive(Clone, Debug)]
pub struct Message {
    /// Info or error.
    pub level: Level,
    /// The text.
    pub text: String,
    /// When it was posted.
    pub at: std::time::Instant,
}

/// The most recent messages, newest last.
#[derive(Default)]
pub struct Messages {
    items: Vec<Message>,
    /// Every error posted, for `--report`.
    errors: Vec<String>,
}

/// Messages kept for the UI.
const KEPT: usize = 6;

impl Messages {
    /// Posts an informational message (also logged).
    pub fn info(&mut self, text: impl Into<String>) {
        let text = text.into();
        log::info!("{text}");
        self.push(Level::Info, text);
    }

    /// Posts an error message (also logged as a warning: the app keeps running).
    pub fn error(&mut self, text: impl Into<String>) {
        let text = text.into();
        log::warn!("{text}");
        self.errors.push(text.clone());
        self.push(Level::Error, text);
    }

    fn push(&mut self, level: Level, text: String) {
        self.items.push(Message { level, text, at: std::time::Instant::now() });
        if self.items.len() > KEPT {
            self.items.remove(0);
        }
    }

    /// The kept messages, oldest first.
    pub fn items(&self) -> &[Message] {
        &self.items
    }

    /// Every error posted so far, oldest first.
    pub fn all_errors(&self) -> &[String] {
        &self.errors
    }
}
