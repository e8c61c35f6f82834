package tandem.protocol.frpl;

import java.util.ArrayList;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import tandem.protocol.command.CommandPayload;

/** App payloads for properties: single commands of any bytes, and transactions of them. */
final class Payloads {

    private Payloads() {
    }

    static Arbitrary<byte[]> commandsAndTransactions() {
        Arbitrary<byte[][]> command = Arbitraries.bytes().array(byte[].class).ofMaxSize(30)
                .array(byte[][].class).ofMinSize(1).ofMaxSize(12);
        Arbitrary<byte[]> single = command.map(CommandPayload::encode);
        Arbitrary<byte[]> tx = command.list().ofMaxSize(5)
                .map(cs -> CommandPayload.encodeTransaction(new ArrayList<>(cs)));
        return Arbitraries.oneOf(single, tx);
    }
}
