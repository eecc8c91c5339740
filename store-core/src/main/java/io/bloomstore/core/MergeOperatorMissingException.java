package io.bloomstore.core;

/**
 * A read met merge operands ({@link Store#merge}) in a store opened without a
 * {@link StoreOptions.Builder#mergeOperator merge operator}: open it again with the operator it was
 * written with. Nothing is lost; keys without operands read as ever.
 */
public final class MergeOperatorMissingException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public MergeOperatorMissingException(String message) {
        super(message);
    }
}
