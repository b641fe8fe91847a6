package io.shardscan.annotation;

import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowColumns;
import java.util.List;

/**
 * Where the column of each record component or bean property is in a page's {@link Row.Layout},
 * resolved once per layout, so that binding a row reads its values by position. A member binds to
 * the first column of the same {@link RowColumns#key key}. Thread-safe.
 */
final class MemberPositions {

    private final String[] keys;
    private volatile Resolved last;

    MemberPositions(List<String> members) {
        this.keys = members.stream().map(RowColumns::key).toArray(String[]::new);
        this.last = resolve(new Row.Layout(List.of()));
    }

    /** The position of each member's column in {@code layout}, in member order; -1 where it has none. */
    int[] in(Row.Layout layout) {
        Resolved resolved = last;
        if (resolved.layout == layout) {
            return resolved.positions;
        }
        // pages of one task share their names; another page's layout only needs the same names
        resolved = resolved.layout.names().equals(layout.names())
                ? new Resolved(layout, resolved.positions)
                : resolve(layout);
        last = resolved;
        return resolved.positions;
    }

    private Resolved resolve(Row.Layout layout) {
        List<String> names = layout.names();
        int[] positions = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            positions[i] = -1;
            for (int p = 0; p < names.size(); p++) {
                if (keys[i].equals(RowColumns.key(names.get(p)))) {
                    positions[i] = p;
                    break;
                }
            }
        }
        return new Resolved(layout, positions);
    }

    private record Resolved(Row.Layout layout, int[] positions) {}
}
