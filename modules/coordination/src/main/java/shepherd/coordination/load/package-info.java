/**
 * Loading after an election: the seed's startup reads and listeners, and the post-election lease wait (DESIGN §5,
 * D4, D9). Not exported.
 */
package shepherd.coordination.load;
