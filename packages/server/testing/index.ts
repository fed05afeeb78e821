/**
 * What tests and benchmarks outside this package use of it: a whole deployment as separate
 * processes on PostgreSQL (the chaos run's cluster).
 */
export * from '../chaos/cluster.js';
