/**
 * What the last portal action came to: a notice announced politely, or an error announced at
 * once, as every portal page shows them below its forms.
 */
export function ActionOutcome(props: {
  readonly notice: string | null;
  readonly error: string | null;
}) {
  return (
    <>
      {props.notice !== null && (
        <p class="success" role="status">
          {props.notice}
        </p>
      )}
      {props.error !== null && (
        <p class="error" role="alert">
          {props.error}
        </p>
      )}
    </>
  );
}
