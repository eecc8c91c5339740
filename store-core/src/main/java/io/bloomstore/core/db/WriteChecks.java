package io.bloomstore.core.db;

import io.bloomstore.core.MergeOperator;
import io.bloomstore.core.WriteBatch;

/**
 * The write path's argument checks, as LevelDB and RocksDB check a write before it joins a write
 * group: keys and values against the store's size limits, merge operands against the keyspace's
 * merge operator, and every operation of a batch. A write that fails one is refused before it
 * enters the {@link WriteQueue}, so it never reaches the WAL. The store's open and writable checks
 * stay with {@link DbWrite}, in the order its entry points make them.
 *
 * <p>Thread safety: safe for concurrent use; it reads only the store's options and keyspace rules,
 * and takes no lock.
 */
final class WriteChecks {
    private final DbState db;

    WriteChecks(DbState db) {
        this.db = db;
    }

    void checkKey(byte[] key) {
        if (key == null || key.length == 0) {
            throw new IllegalArgumentException("key must not be null or empty");
        }
        if (key.length > db.options.maxKeyBytes()) {
            throw new IllegalArgumentException("key of " + key.length + " bytes is over the maximum of "
                    + db.options.maxKeyBytes() + " bytes (StoreOptions.maxKeyBytes)");
        }
    }

    void checkValue(byte[] value) {
        if (value.length > db.options.maxValueBytes()) {
            throw new IllegalArgumentException("value of " + value.length + " bytes is over the maximum of "
                    + db.options.maxValueBytes() + " bytes (StoreOptions.maxValueBytes)");
        }
    }

    void checkOperand(DbState keyspace, byte[] key, byte[] operand) {
        checkValue(operand);
        MergeOperator op = keyspace.rules.mergeOperator();
        if (op == null) {
            throw new IllegalStateException(keyspace == db ? "merge needs a merge operator: open the store with "
                    + "StoreOptions.builder().mergeOperator(...) (e.g. MergeOperators.int64Add())"
                    : "merge in keyspace " + keyspace.keyspaceName + " needs a merge operator: give it with "
                    + "KeyspaceOptions.builder().mergeOperator(...)");
        }
        op.checkOperand(key, operand);
    }

    /**
     * Checks every operation of {@code batch} (its keys, values and merge operands, each merge
     * against the operator of its keyspace), in the batch's order, and answers the batch's user
     * key and value bytes.
     */
    long checkBatch(WriteBatch batch) {
        long[] userBytes = {0};
        batch.forEach(new WriteBatch.Handler() {
            private DbState keyspace = db;

            @Override
            public void keyspace(io.bloomstore.core.Keyspace k) {
                keyspace = k == null ? db : KeyspaceHandle.stateIn(db, k);
            }

            @Override
            public void put(byte[] key, byte[] value) {
                checkKey(key);
                userBytes[0] += key.length + value.length;
                checkValue(value);
            }

            @Override
            public void delete(byte[] key) {
                checkKey(key);
                userBytes[0] += key.length;
            }

            @Override
            public void merge(byte[] key, byte[] operand) {
                checkKey(key);
                userBytes[0] += key.length + operand.length;
                checkOperand(keyspace, key, operand);
            }

            @Override
            public void deleteRange(byte[] from, byte[] to) {
                checkKey(from);
                checkKey(to);
                userBytes[0] += from.length + to.length;
            }
        });
        return userBytes[0];
    }
}
