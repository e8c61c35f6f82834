package tandem.store;

import tandem.store.Tx.Rec;

final class ZsetCommands {

    private ZsetCommands() {
    }

    static String encodingName(Rec rec) {
        return rec.has(Tx.ENC_RAW) || rec.fieldCount() > 128 ? "skiplist" : "listpack";
    }
}
