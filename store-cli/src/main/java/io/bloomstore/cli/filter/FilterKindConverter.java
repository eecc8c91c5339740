package io.bloomstore.cli.filter;

import java.util.Arrays;
import java.util.Iterator;
import java.util.stream.Collectors;

import io.bloomstore.bloom.FilterKind;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Parses {@code --kind} by the kinds' command-line names ({@link FilterKind#cliName()}) and
 * lists them as completion candidates.
 */
final class FilterKindConverter implements ITypeConverter<FilterKind>, Iterable<String> {

    @Override
    public FilterKind convert(String value) {
        try {
            return FilterKind.byCliName(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException("unknown filter kind '" + value + "' (kinds: " + String.join(", ", this) + ")");
        }
    }

    @Override
    public Iterator<String> iterator() {
        return Arrays.stream(FilterKind.values()).map(FilterKind::cliName).collect(Collectors.toList()).iterator();
    }
}
