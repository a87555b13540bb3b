/**
 * Whether a promise has settled (resolved or rejected) after the event loop has had `turns`
 * turns of `waitMs` each: how a test checks that something is still waiting, without
 * holding up the test if it is not.
 */
export async function settledAfter(promise: Promise<unknown>, turns = 5, waitMs = 0): Promise<boolean> {
  let done = false;
  const mark = () => {
    done = true;
  };
  promise.then(mark, mark);
  for (let i = 0; i < turns; i += 1) await new Promise((resolve) => setTimeout(resolve, waitMs));
  return done;
}
