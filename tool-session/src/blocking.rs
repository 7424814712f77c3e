//! Blocking work in async hosts: how a store's I/O meets a tokio runtime.

use tokio::runtime::{Handle, RuntimeFlavor};

/// Runs `work`, which blocks (a log's write and fsync, a database round trip, a wait for another
/// thread), so that an async host's other tasks go on meanwhile.
///
/// On a worker of a multi-threaded tokio runtime (or in its `block_on`), `work` runs under
/// [`tokio::task::block_in_place`]: the worker hands its other tasks to a new thread while this
/// one blocks, so a slow store slows only the calls waiting on it. Everywhere else `work` runs as
/// it is: outside any runtime, on a blocking-pool thread, and on a current-thread runtime, whose
/// one thread has nowhere to hand its tasks (a host that wants its sessions' I/O off that thread
/// calls its tools with `spawn_blocking`).
///
/// Sessions call it around every read and write of their log, so a tool that appends to its
/// session, sync or async, never stalls the runtime it is called on; a store does not need to.
///
/// ```
/// # #[tokio::main(flavor = "multi_thread", worker_threads = 2)]
/// # async fn main() {
/// // A worker of a multi-threaded runtime steps out while it blocks.
/// let answer = tool_session::blocking(|| {
///     std::thread::sleep(std::time::Duration::from_millis(1));
///     42
/// });
/// assert_eq!(answer, 42);
/// # }
/// ```
pub fn blocking<R>(work: impl FnOnce() -> R) -> R {
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}
