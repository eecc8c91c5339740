package io.bloomstore.bloom;

/**
 * The fixed 64-byte header of a filter file (docs/format/filter.md). The meaning of
 * {@code k}, {@code aux}, {@code m} and {@code aux2} depends on the kind; each filter class
 * documents its use.
 *
 * @param kind          filter kind
 * @param hashStrategy  how keys are hashed
 * @param k             probes per key (Bloom kinds) or a kind-specific count
 * @param aux           kind-specific 32-bit parameter (0 when unused)
 * @param m             bits (Bloom kinds) or a kind-specific size
 * @param n             keys added
 * @param seed          hash seed
 * @param payloadLength payload bytes following the header
 * @param aux2          kind-specific 64-bit parameter (0 when unused)
 */
public record FilterHeader(FilterKind kind, HashStrategy hashStrategy, int k, int aux, long m, long n,
                           long seed, long payloadLength, long aux2) {
}
