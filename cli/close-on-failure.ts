/**
 * Runs `step` on something just opened; when the step fails, closes it first and then throws the
 * step's error. A failure to close is dropped: the step's error is the one that explains.
 */
export async function closeOnFailure(step: () => Promise<unknown>, close: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
