package io.bloomstore.bloom;

import java.io.IOException;

/**
 * Opens a filter of any kind from its header and payload: the one place that maps a
 * {@link FilterKind} read from disk to the class that reads it.
 */
final class FilterCodecs {
    private FilterCodecs() {
    }

    static MembershipFilter open(FilterHeader h, FilterPayload payload) throws IOException {
        switch (h.kind()) {
            case BLOOM:
                return BloomFilter.open(h, payload);
            case BLOCKED_BLOOM:
                return BlockedBloomFilter.open(h, payload);
            case COUNTING_BLOOM:
                return CountingBloomFilter.open(h, payload);
            case SCALABLE_BLOOM:
                return ScalableBloomFilter.open(h, payload);
            case CUCKOO:
                return CuckooFilter.open(h, payload);
            case BINARY_FUSE:
                return BinaryFuseFilter.open(h, payload);
            case RIBBON:
                return RibbonFilter.open(h, payload);
            case RANGE:
                return RangeFilter.open(h, payload);
            case ROSETTA:
                return RosettaFilter.open(h, payload);
            default:
                throw new IllegalArgumentException("filter kind " + h.kind().cliName() + " cannot be read by this build");
        }
    }
}
