/**
 * pkg/operator-controller/installerwatch: informers of an installer's objects shared by the
 * controllers that watch them (the drift watches and the revision watches), one per identity,
 * selector, kind and namespace, started by the first subscriber and stopped with the last.
 */
export { SharedWatches, type WatchSubscriber } from './shared-watches.ts';
