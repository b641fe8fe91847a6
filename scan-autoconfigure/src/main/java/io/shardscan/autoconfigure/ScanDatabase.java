package io.shardscan.autoconfigure;

import io.shardscan.core.task.InvalidTaskException;
import java.util.Arrays;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The DataSource Shardscan runs on: the {@link ScanDataSource @ScanDataSource} one, else the
 * application's unique or primary one. Every bean of the auto-configuration takes it from here, so
 * they all agree.
 */
record ScanDatabase(DataSource dataSource) {

    static ScanDatabase choose(
            ObjectProvider<DataSource> qualified, ObjectProvider<DataSource> any, ListableBeanFactory beans) {
        DataSource chosen = qualified.getIfAvailable(any::getIfUnique);
        if (chosen == null) {
            // Boot's own auto-configurations back off silently here; a starter the application added must not
            throw new InvalidTaskException("the application has "
                    + Arrays.toString(beans.getBeanNamesForType(DataSource.class))
                    + " DataSource beans and none is @Primary or @ScanDataSource, so Shardscan does not know which"
                    + " holds its tables. Annotate the bean of that DataSource with @ScanDataSource"
                    + " (io.shardscan.autoconfigure), or make one @Primary, or set scan.enabled=false");
        }
        return new ScanDatabase(chosen);
    }
}
