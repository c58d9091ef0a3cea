// Group commit for hot statements (the runtime's effect claims, results and completions, and
// single enqueues): the calls that arrive while one statement of their kind is in flight go
// together in the next one. Nothing waits on a timer: a call that finds nothing in flight is sent
// at the end of the current turn of the event loop (setImmediate), with the calls made in that
// same turn — several attempts woken by one answer reach their next statement together, and
// sent at once the first would go alone and split them — and later batches form only from what
// arrived meanwhile. Each call still resolves only once its statement has committed.
import { CommitInDoubtError } from "../../db/retry";

export type GroupCommit<I, O> = (item: I) => Promise<O>;

export function groupCommit<I, O>(opts: {
  /** One call alone (also the path a refused batch's members take). */
  one: (item: I) => Promise<O>;
  /** Several calls in one statement, answers in the items' order. */
  many: (items: I[]) => Promise<O[]>;
  max?: number;
}): GroupCommit<I, O> {
  const max = opts.max ?? 200;
  type Pending = { item: I; resolve: (o: O) => void; reject: (err: unknown) => void };
  let queue: Pending[] = [];
  let flushing = false;

  const alone = async (p: Pending) => {
    try {
      p.resolve(await opts.one(p.item));
    } catch (err) {
      p.reject(err);
    }
  };

  const send = async (batch: Pending[]) => {
    if (batch.length === 1) return alone(batch[0] as Pending);
    try {
      const answers = await opts.many(batch.map((p) => p.item));
      batch.forEach((p, i) => {
        p.resolve(answers[i] as O);
      });
    } catch (err) {
      // In doubt: it may have committed. Each caller reads back what did before it goes again.
      if (err instanceof CommitInDoubtError) {
        for (const p of batch) p.reject(err);
        return;
      }
      // A moved head, or anything one item could cause: each alone, with its own answer.
      await Promise.all(batch.map(alone));
    }
  };

  const flush = async () => {
    try {
      while (queue.length > 0) {
        const batch = queue.slice(0, max);
        queue = queue.slice(batch.length);
        await send(batch);
      }
    } finally {
      flushing = false;
    }
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!flushing) {
        flushing = true;
        setImmediate(() => void flush());
      }
    });
}
