export function SwapProgressPage(props: { intentId?: string }) {
  return (
    <section>
      <h1>Swap {props.intentId}</h1>
    </section>
  );
}
