//! Forwarding what a running call sends to the client, in order, without slowing the call.

/// Forwards what a call sends while it runs (its progress reports, its log messages) to the
/// client, in order, until the call has answered: then what it sent before is forwarded, and
/// nothing after (a blocking tool cut at its deadline may go on, unheard).
///
/// Messages wait in a queue of [`Forwarder::QUEUE`]; a tool that sends faster than the client
/// reads loses the messages that find it full, never its own pace.
pub(crate) struct Forwarder {
    finished: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl Forwarder {
    const QUEUE: usize = 64;

    /// Starts forwarding with `notify` (which says whether the client could be told); what the
    /// call sends goes into the queue it returns.
    pub(crate) fn start<T, F, Sent>(notify: F) -> (Self, tokio::sync::mpsc::Sender<T>)
    where
        T: Send + 'static,
        F: Fn(T) -> Sent + Send + 'static,
        Sent: std::future::Future<Output = bool> + Send,
    {
        let (send, mut receive) = tokio::sync::mpsc::channel::<T>(Self::QUEUE);
        let (finished, mut finished_rx) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(async move {
            loop {
                tokio::select! {
                    biased;
                    sent = receive.recv() => match sent {
                        Some(sent) => if !notify(sent).await { return },
                        None => return,
                    },
                    _ = &mut finished_rx => {
                        while let Ok(sent) = receive.try_recv() {
                            if !notify(sent).await {
                                return;
                            }
                        }
                        return;
                    }
                }
            }
        });
        (Forwarder { finished, task }, send)
    }

    /// Forwards what the call sent, then stops.
    pub(crate) async fn finish(self) {
        let _ = self.finished.send(());
        let _ = self.task.await;
    }
}
