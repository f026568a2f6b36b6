/**
 * What a page (or a section of one) that failed to render shows: its error, in its place, instead
 * of an empty window (React unmounts the whole tree on an uncaught render error). The rest stays:
 * the masthead and navigation around a page, the other sections around a section; going to
 * another page, or *Show again*, renders afresh.
 */
import { Component, type ReactNode } from 'react';
import { Alert, AlertActionLink, PageSection } from '@patternfly/react-core';

interface State {
  failed: Error | undefined;
}

export class PageBoundary extends Component<{ children: ReactNode; what?: string }, State> {
  override state: State = { failed: undefined };

  static getDerivedStateFromError(error: unknown): State {
    return { failed: error instanceof Error ? error : new Error(String(error)) };
  }

  override render(): ReactNode {
    const { failed } = this.state;
    if (failed === undefined) return this.props.children;
    return (
      <PageSection aria-label={`${this.props.what ?? 'Page'} failed`}>
        <Alert
          component="p"
          variant="danger"
          isInline
          title={`${this.props.what ?? 'This page'} failed to show`}
          data-page-failed=""
          actionLinks={<AlertActionLink onClick={() => this.setState({ failed: undefined })}>Show again</AlertActionLink>}
        >
          {failed.message}
        </Alert>
      </PageSection>
    );
  }
}
