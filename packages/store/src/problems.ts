import { BaseError } from '@poolparty/core';

/** What kind of problem a store has: any, none there at all, or of another environment. */
export type StoreProblemCode = 'store_unusable' | 'no_store' | 'wrong_store_environment';

/** Why a store cannot be used as asked; the message is the one line an operator reads. */
export class StoreProblem extends BaseError<StoreProblemCode> {
  override readonly name = 'StoreProblem';
  constructor(message: string, code: StoreProblemCode = 'store_unusable') {
    super(code, message);
  }
}

/** The location holds no PoolParty store at all (as opposed to one that cannot be reached). */
export class NoStoreProblem extends StoreProblem {
  constructor(message: string) {
    super(message, 'no_store');
  }
}
