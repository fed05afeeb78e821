/** The developer area's entry: where to start building on PoolParty. */
export function DeveloperPage() {
  return (
    <section>
      <h1>Developers</h1>
      <p>
        Apps swap through <code>@poolparty/sdk</code>: quotes, swap intents, the swap's progress and
        the party's history, in browsers and Node.
      </p>
      <ul>
        <li>
          <a href="/docs" target="_self">
            API reference
          </a>{' '}
          — every endpoint, generated from the service's own schemas.
        </li>
        <li>
          <a href="/developer/sdk">SDK guide</a> — install, a complete swap, wallet authentication,
          offers, errors.
        </li>
      </ul>
    </section>
  );
}
