package io.bloomstore.core.db;

import io.bloomstore.core.Keyspace;
import io.bloomstore.core.KeyspaceOptions;
import io.bloomstore.core.StoreOptions;
import io.bloomstore.core.manifest.FileMetaData;
import io.bloomstore.core.manifest.Version;
import io.bloomstore.core.manifest.VersionEdit;
import io.bloomstore.core.stats.StoreCounters;
import io.bloomstore.core.table.TableOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The keyspaces of an open store ({@link DbImpl}): makes the state of each one the MANIFEST holds
 * at open, creates and drops keyspaces (each a MANIFEST edit, one at a time), and knows the
 * options each is open with. The states themselves are in the root state's
 * {@link DbState#keyspaces} list, which readers and writers use without this class.
 *
 * <p>Thread safety: creations and drops are serialized on {@link #changes()}, which the store's
 * close also takes, so no edit is logged after the MANIFEST is closed.
 */
final class KeyspaceCatalog {
    /** The longest keyspace name, in UTF-8 bytes. */
    private static final int MAX_NAME_BYTES = 255;

    private final DbState db;
    /** Serializes keyspace creation and drops (each logs a MANIFEST edit, without the mutex). */
    private final Object changes = new Object();
    /** Options of keyspaces created by this instance with options of their own; under {@link #changes}. */
    private final Map<String, KeyspaceOptions> createdWith = new HashMap<>();

    KeyspaceCatalog(DbState root) {
        this.db = root;
    }

    /** The lock creations and drops hold; the store's close takes it too. */
    Object changes() {
        return changes;
    }

    /**
     * At open: adds the state of keyspace {@code id}, which the MANIFEST holds, with an empty
     * memtable on WAL segment {@code walNumber} and its tables registered (opened on first use).
     */
    void addExisting(int id, String name, long walNumber) {
        add(newState(id, name, optionsAtOpen(name), walNumber, db.versions.version(id)));
    }

    /**
     * The state of keyspace {@code name}, created with {@code options} (null: those of the store's
     * options for the name, else the store's) when the store has none by that name.
     *
     * @throws IllegalStateException when the keyspace exists with other options, or would have to
     *         be created in a store opened read-only
     */
    DbState get(String name, KeyspaceOptions options) throws IOException {
        db.checkOpen();
        checkName(name);
        if (name.equals(Keyspace.DEFAULT_NAME)) {
            if (options != null && !options.equals(KeyspaceOptions.DEFAULT)) {
                throw new IllegalStateException("the default keyspace takes the store's options (StoreOptions), "
                        + "not KeyspaceOptions");
            }
            return db;
        }
        synchronized (changes) {
            db.checkOpen();
            DbState k = db.keyspace(name);
            if (k == null) {
                db.checkWritable();
                KeyspaceOptions given = db.options.keyspaceOptions().get(name);
                if (options != null && given != null && !given.equals(options)) {
                    throw new IllegalStateException("keyspace " + name + " is given other options in the "
                            + "store's StoreOptions.keyspaceOptions: " + given);
                }
                // Made (and so checked) before anything is written: a combination the store refuses fails here.
                StoreOptions effective = options == null ? optionsAtOpen(name) : options.over(db.options);
                k = create(name, options, effective);
            } else if (options != null && !optionsOf(name).equals(options)) {
                throw new IllegalStateException("keyspace " + name + " of " + db.dir + " is open with "
                        + optionsOf(name) + "; a keyspace's options are fixed while the store is open: give them "
                        + "at open with StoreOptions.builder().keyspaceOptions(\"" + name + "\", ...)");
            }
            return k;
        }
    }

    /** The names of the keyspaces, the default one first. */
    List<String> names() {
        db.checkOpen();
        List<String> names = new ArrayList<>();
        for (DbState k : db.keyspaces) {
            names.add(k.keyspaceName);
        }
        return names;
    }

    /** See {@link io.bloomstore.core.Store#dropKeyspace}. */
    void drop(String name) throws IOException {
        db.checkOpen();
        db.checkWritable();
        checkName(name);
        if (name.equals(Keyspace.DEFAULT_NAME)) {
            throw new IllegalArgumentException("the default keyspace cannot be dropped");
        }
        synchronized (changes) {
            db.checkOpen();
            DbState k = db.keyspace(name);
            if (k == null) {
                throw new IllegalArgumentException("no keyspace " + name + " in " + db.dir + " (keyspaces: "
                        + names() + ")");
            }
            // Out of the store's list at a barrier (mutex held): every write group queued before it
            // has finished inserting into the keyspace's memtable, and those after it skip the
            // keyspace, so nothing touches the memtable once its view is let go below (which drops
            // its arenas). A closing store refuses the barrier, and the keyspace stays whole; one
            // that has queued it waits for it before it closes anything.
            DbState[][] before = {null};
            db.queue.submitBarrier(group -> before[0] = remove(k));
            Version v;
            try {
                // Its flushes and compactions stop (their outputs abandoned) before its files go.
                k.background.requestShutdown();
                k.background.shutdown();
                v = k.versions.current();
                VersionEdit edit = new VersionEdit().dropKeyspace();
                for (int level = 0; level < Version.NUM_LEVELS; level++) {
                    for (FileMetaData f : v.files(level)) {
                        edit.deleteFile(level, f.fileNumber());
                    }
                }
                try {
                    k.versions.logAndApply(edit);
                } catch (IOException | RuntimeException | Error e) {
                    // The MANIFEST may hold the edit or part of it: writes stop, a reopen recovers.
                    db.root.fail("dropping keyspace " + name, e);
                    throw e;
                }
            } catch (IOException | RuntimeException | Error e) {
                // Back in the list, so that the store's close (which waits for this lock) lets go of
                // its view and closes its tables, as it does every keyspace's: left out, its last
                // tables would stay mapped, and their descriptors open, for the life of the process.
                restore(k, before[0]);
                throw e;
            }
            createdWith.remove(name);
            db.mutex().lock();
            try {
                // Logged: its WAL records are passed over by every replay from now on.
                db.dropping = null;
                k.readers.scrape();
                for (FileMetaData f : v.allFiles()) {
                    k.tables.drop(f.fileNumber(), true);
                }
                k.view.tables().release();
            } finally {
                db.mutex().unlock();
            }
            // The tables no reader holds are deleted before this returns; those an open iterator
            // or snapshot still reads go when it lets go of them.
            k.tables.awaitReclaimed();
        }
    }

    /** At the drop's barrier, mutex held: takes {@code k} out of the store's list; returns the list it was in. */
    private DbState[] remove(DbState k) {
        DbState[] before = db.keyspaces;
        k.dropped = true;
        DbState[] all = new DbState[before.length - 1];
        int n = 0;
        for (DbState s : before) {
            if (s != k) {
                all[n++] = s;
            }
        }
        db.keyspaces = all;
        db.dropping = k;
        db.chargeMemtables();
        db.queue.signalChange();
        return before;
    }

    /** Under {@link #changes}, after a drop of {@code k} failed: makes {@code keyspaces} the store's again. */
    private void restore(DbState k, DbState[] keyspaces) {
        db.mutex().lock();
        try {
            k.dropped = false;
            db.keyspaces = keyspaces;
            db.dropping = null;
            db.chargeMemtables();
            db.queue.signalChange();
        } finally {
            db.mutex().unlock();
        }
    }

    /** Under {@link #changes}: logs the creation of keyspace {@code name}, then adds its state. */
    private DbState create(String name, KeyspaceOptions options, StoreOptions effective) throws IOException {
        int id = db.versions.nextKeyspaceId();
        // Durable before any write can name it: the WAL's records of its writes follow the edit.
        db.versions.logAndApply(new VersionEdit().createKeyspace(id, name));
        if (options != null) {
            createdWith.put(name, options);
        }
        db.mutex().lock();
        try {
            // Its memtable starts on the current WAL segment, as every keyspace's active one.
            DbState k = newState(id, name, effective, db.view.mem().logNumber(), Version.empty());
            add(k);
            return k;
        } finally {
            db.mutex().unlock();
        }
    }

    /**
     * The state of keyspace {@code id} with its own counters and table registry, {@code version}'s
     * tables registered in it (opened on first use), and an empty memtable on segment {@code walNumber}.
     */
    private DbState newState(int id, String name, StoreOptions options, long walNumber, Version version) {
        StoreCounters counters = new StoreCounters(Version.NUM_LEVELS);
        TableRegistry tables = db.tables.sibling(TableOptions.of(options), counters);
        for (int level = 0; level < Version.NUM_LEVELS; level++) {
            for (FileMetaData f : version.files(level)) {
                tables.register(f.fileNumber(), level);
            }
        }
        DbState k = new DbState(db, id, name, options, tables, counters, walNumber);
        k.background = new DbBackground(k);
        k.reads = new DbRead(k);
        return k;
    }

    private void add(DbState k) {
        DbState[] all = Arrays.copyOf(db.keyspaces, db.keyspaces.length + 1);
        all[all.length - 1] = k;
        db.keyspaces = all;
    }

    /** The options keyspace {@code name} opens with: those given for it in the store's options, over the store's. */
    private StoreOptions optionsAtOpen(String name) {
        KeyspaceOptions given = db.options.keyspaceOptions().get(name);
        return given == null ? db.options : given.over(db.options);
    }

    /** The keyspace options keyspace {@code name} is open with ({@link KeyspaceOptions#DEFAULT}: the store's own). */
    private KeyspaceOptions optionsOf(String name) {
        KeyspaceOptions o = db.options.keyspaceOptions().get(name);
        if (o == null) {
            o = createdWith.get(name);
        }
        return o == null ? KeyspaceOptions.DEFAULT : o;
    }

    private static void checkName(String name) {
        if (name == null || name.isEmpty() || name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("a keyspace name must be 1 to " + MAX_NAME_BYTES
                    + " UTF-8 bytes: " + (name == null ? "null" : "'" + name + "'"));
        }
    }
}
