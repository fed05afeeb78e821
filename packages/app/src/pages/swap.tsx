export function SwapPage() {
  return (
    <section>
      <h1>Swap</h1>
    </section>
  );
}
