/** Which network a deployment serves: devnet's tokens are not real, mainnet's are. */
export type Environment = 'devnet' | 'mainnet';
