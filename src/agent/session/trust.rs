//! The session's trust, at each event: what the hook found of the
//! session's files ([`chain::check`]) decides whether the event goes on,
//! or the session starts again first (and its next stop blocks once); at
//! the event's end the chain is kept in the folder and mirrored with the
//! session's pin ([`pin`]). The hook's other writes record themselves in
//! the chain ([`Session::wrote`]).

use super::chain::{self, Chain, Found};
use super::pin;
use super::state::Answered;
use super::{Session, release};
use crate::agent::protocol::{Event, Input, Reply};

impl Session {
    /// The event, once the session's files are known to be the hook's: a
    /// session changed by anything else starts again first, with every
    /// failure counted, and its next stop blocks once saying why.
    pub(super) fn handle(&self, event: Event, input: &Input) -> Reply {
        match self.found.take() {
            Some(Found::Trusted(chain)) => *self.chain.borrow_mut() = chain,
            Some(Found::Restart(note)) => {
                if let Err(why) = self.restart(None) {
                    return release(why);
                }
                self.notes.borrow_mut().push(note);
            }
            Some(Found::Tampered(why)) => {
                if let Err(err) = self.restart(Some(why.clone())) {
                    return release(err);
                }
                if event == Event::Start {
                    return Reply::Release {
                        message: untrusted(&why),
                    };
                }
            }
            Some(Found::New) | None => {}
        }
        // The guard's denials since the last stop are told to the user now,
        // at the end of the turn they happened in.
        if event == Event::Stop
            && let Some(denials) = crate::agent::guard::record::take(&self.dir)
        {
            self.notes.borrow_mut().push(denials);
        }
        match event {
            Event::Start => self.start(),
            Event::Stop => match self.block_untrusted() {
                Some(reply) => reply,
                None => self.stop(input),
            },
        }
    }

    /// Starts the session again: the hook's files go, and a new state has
    /// no baseline and the recorded base. `why`: it was tampered with.
    fn restart(&self, why: Option<String>) -> Result<(), String> {
        chain::clear(&self.dir);
        *self.chain.borrow_mut() = Chain {
            untrusted: why,
            ..Chain::default()
        };
        self.begin(false).map(|_| ())
    }

    /// The first stop after a restart for tampering: blocked once, the
    /// user told (a restart at session start had no stop to block).
    fn block_untrusted(&self) -> Option<Reply> {
        let why = self.chain.borrow_mut().untrusted.take()?;
        let message = untrusted(&why);
        let reply = Reply::Block {
            reason: message.clone(),
            notice: Some(message),
        };
        // A block of the count, and the stop's answer for a second hook.
        if let Ok(Some(mut state)) = self.load() {
            state.blocks = 1;
            state.answered = Some(Answered::new(self.agent, state.rounds, &reply));
            if let Err(why) = self.save(&state) {
                return Some(release(why));
            }
        }
        Some(reply)
    }

    /// Records that the hook wrote (or removed) `name` in the folder.
    pub(super) fn wrote(&self, name: &str) {
        self.chain.borrow_mut().record(&self.dir, name);
    }

    /// Ends the event: the chain as the event left it, in the folder and
    /// mirrored in the state folder (with the pin), and the notes for the
    /// user added to `reply`. A chain that cannot be kept lets the agent
    /// stop with that said: the next event could not trust the session.
    pub(super) fn seal(&self, reply: Reply) -> Reply {
        let chain = self.chain.borrow().clone();
        let mut mirror = self.mirror.borrow_mut();
        mirror.chain = chain.clone();
        mirror.pruned = false;
        let kept = chain::write(&self.dir, &chain).and_then(|()| pin::write(&self.name, &mirror));
        if let Err(why) = kept {
            return release(format!("the session's digest chain cannot be kept: {why}"));
        }
        let notes = self.notes.take();
        if notes.is_empty() {
            return reply;
        }
        let note = notes.join("; ");
        match reply {
            Reply::Allow => Reply::Release { message: note },
            Reply::Block { reason, notice } => Reply::Block {
                reason,
                notice: Some(notice.map_or(note.clone(), |n| format!("{n}; {note}"))),
            },
            Reply::Release { message } => Reply::Release {
                message: format!("{message}; {note}"),
            },
        }
    }
}

/// What the agent and the user are told of a session whose files were
/// changed by anything but the hook.
fn untrusted(why: &str) -> String {
    format!(
        "run-check gate: this agent session is not trusted: {why}. Its files are run-check's \
         own, and were changed by something else (the code under test, or the agent's shell). \
         The session starts again with every failure counted, against the base it started \
         from; run the checks, fix what they report and stop again"
    )
}
