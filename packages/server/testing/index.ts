/**
 * What tests and benchmarks outside this package use of it: a whole deployment as separate
 * processes on PostgreSQL (the chaos run's cluster); one service in the test's own process, on
 * an embedded store and ledger in a fresh data folder, seeded as on first start; and a discount
 * policy added as `poolparty admin discounts add` adds one, for pages that show discounted fees.
 */
export * from '../chaos/cluster.js';
export { addDiscount } from '../src/admin/discounts.js';
export { startTestService, type TestService } from '../test/support/service.js';
