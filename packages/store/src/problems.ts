/** Why a store cannot be used as asked; the message is the one line an operator reads. */
export class StoreProblem extends Error {
  override readonly name = 'StoreProblem';
}

/** The location holds no PoolParty store at all (as opposed to one that cannot be reached). */
export class NoStoreProblem extends StoreProblem {}
